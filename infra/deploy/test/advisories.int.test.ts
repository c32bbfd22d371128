import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAdvisories, installedVersions, type Advisory } from '../tools/advisories';
import { listProduction } from '../tools/sbom';

/**
 * The advisory check against a local registry that speaks npm's bulk advisory protocol
 * (`POST /-/npm/v1/security/advisories/bulk`, a body of `{ name: [versions] }`, an answer of `{ name: [advisory] }`),
 * asked about the payment service's real production dependencies.
 */

interface Registry {
  url: string;
  asked: Array<Record<string, string[]>>;
  close(): Promise<void>;
}

/** A registry answering `status` with `advisories` (only for packages it was asked about, as npm's does). */
async function registry(status: number, advisories: Record<string, Advisory[]> = {}): Promise<Registry> {
  const asked: Array<Record<string, string[]>> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/-/npm/v1/security/advisories/bulk') {
        response.writeHead(404).end();
        return;
      }
      const packages = JSON.parse(body) as Record<string, string[]>;
      asked.push(packages);
      const answer = Object.fromEntries(Object.entries(advisories).filter(([name]) => name in packages));
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const advisory = (id: string, range: string): Advisory => ({
  id: 1,
  url: `https://github.com/advisories/${id}`,
  title: `a flaw (${id})`,
  severity: 'high',
  vulnerable_versions: range,
});

describe('known advisories of the production dependencies', () => {
  let packages: Record<string, string[]>;
  let pg: string;
  beforeAll(async () => {
    const [payment] = await listProduction(['services/payment']);
    packages = installedVersions([payment!.dependencies]);
    pg = packages.pg![0]!;
  }, 60_000);

  test('asks about every installed production package at its version, and no development tool', async () => {
    const local = await registry(200);
    try {
      const outcome = await checkAdvisories(local.url, packages, { accepted: {} });
      expect(outcome).toMatchObject({ checked: true, refused: [], accepted: [] });
      const body = local.asked[0]!;
      expect(body.pg).toEqual([pg]);
      expect(body['pg-protocol']).toHaveLength(1);
      expect(Object.keys(body).length).toBeGreaterThan(50);
      for (const name of ['tsx', 'esbuild', 'jest', '@gateway/messaging']) expect(body[name]).toBeUndefined();
    } finally {
      await local.close();
    }
  });

  test('refuses an advisory whose range holds the installed version, not one whose range does not', async () => {
    const local = await registry(200, {
      pg: [advisory('GHSA-aaaa-bbbb-cccc', `<=${pg}`), advisory('GHSA-dddd-eeee-ffff', `<${pg}`)],
    });
    try {
      const outcome = await checkAdvisories(local.url, packages, { accepted: {} });
      expect(outcome).toMatchObject({
        checked: true,
        refused: [{ name: 'pg', version: pg, advisory: 'GHSA-aaaa-bbbb-cccc', severity: 'high' }],
      });
    } finally {
      await local.close();
    }
  });

  test('an accepted advisory (its package named) passes, and an acceptance nothing needs is reported', async () => {
    const local = await registry(200, { pg: [advisory('GHSA-aaaa-bbbb-cccc', `<=${pg}`)] });
    try {
      const outcome = await checkAdvisories(local.url, packages, {
        accepted: {
          'GHSA-aaaa-bbbb-cccc': { package: 'pg', reason: 'not reachable from our use' },
          'GHSA-zzzz-zzzz-zzzz': { package: 'joi', reason: 'fixed since' },
        },
      });
      expect(outcome).toMatchObject({
        checked: true,
        refused: [],
        accepted: [{ name: 'pg', advisory: 'GHSA-aaaa-bbbb-cccc' }],
        unusedAcceptances: ['GHSA-zzzz-zzzz-zzzz'],
      });
      // Accepted for another package, it is still refused.
      const elsewhere = await checkAdvisories(local.url, packages, {
        accepted: { 'GHSA-aaaa-bbbb-cccc': { package: 'joi', reason: 'wrong package' } },
      });
      expect(elsewhere).toMatchObject({ refused: [{ name: 'pg' }] });
    } finally {
      await local.close();
    }
  });

  test('a registry that does not answer the endpoint (405 of a mirror, or no registry at all) is reported, not passed as checked', async () => {
    const mirror = await registry(405);
    try {
      expect(await checkAdvisories(mirror.url, packages, { accepted: {} })).toEqual({
        checked: false,
        why: `${new URL(mirror.url).origin} answered 405`,
      });
    } finally {
      await mirror.close();
    }
    const gone = await checkAdvisories('http://127.0.0.1:1/', packages, { accepted: {} });
    expect(gone).toMatchObject({ checked: false, why: expect.stringMatching(/did not answer/) });
  });
});
