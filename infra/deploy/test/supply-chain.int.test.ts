import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import satisfies from 'spdx-satisfies';
import { compiledEntries } from '../tools/build';
import { billOfMaterials, listProduction, packageFilters, serialize } from '../tools/sbom';
import { repoRoot } from './support/workspace';

/**
 * What ships, as a supply chain: the licences of every production dependency of the packages the images run (as pnpm
 * reads them from the installed packages) against the allow-list and its written exceptions
 * (infra/deploy/licence-policy.json), and each process's bill of materials (`pnpm sbom`).
 */

interface Policy {
  allowed: string[];
  exceptions: Record<string, { declared: string; reason: string }>;
}
interface Licensed {
  name: string;
  versions: string[];
}

const policy = JSON.parse(readFileSync(join(repoRoot, 'infra/deploy/licence-policy.json'), 'utf8')) as Policy;

/** Whether an SPDX expression is within the allow-list (`Unknown` and other non-SPDX text never is). */
function allowed(expression: string): boolean {
  try {
    return satisfies(expression, policy.allowed);
  } catch {
    return false;
  }
}

/** Each shipped package's production dependencies, by the licence pnpm reads from each. */
async function shippedLicences(): Promise<Record<string, Licensed[]>> {
  const filters = packageFilters(Object.keys(compiledEntries));
  const { stdout } = await promisify(execFile)('pnpm', [...filters, 'licenses', 'list', '--prod', '--json'], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, Licensed[]>;
}

describe('licences of the production dependencies', () => {
  let licences: Record<string, Licensed[]>;
  beforeAll(async () => {
    licences = await shippedLicences();
  }, 60_000);

  test('the allow-list reads expressions as SPDX does', () => {
    expect(allowed('MIT')).toBe(true);
    expect(allowed('(MPL-2.0 OR Apache-2.0)')).toBe(true);
    expect(allowed('(MIT AND Zlib)')).toBe(true);
    expect(allowed('(MIT AND GPL-3.0-only)')).toBe(false);
    expect(allowed('LGPL-3.0-only')).toBe(false);
    expect(allowed('Unknown')).toBe(false);
  });

  test('every one carries an allowed licence, or has a written exception for exactly the licence it declares', () => {
    const refused = Object.entries(licences).flatMap(([licence, packages]) =>
      allowed(licence)
        ? []
        : packages.flatMap(({ name, versions }) =>
            versions
              .filter((version) => policy.exceptions[`${name}@${version}`]?.declared !== licence)
              .map((version) => `${name}@${version} (${licence})`),
          ),
    );
    expect(refused).toEqual([]);
    // Hundreds of packages were read: an empty answer would pass the check above for nothing.
    expect(Object.values(licences).flat().length).toBeGreaterThan(100);
  });

  test('every exception is still needed: its package ships with the licence it was accepted for', () => {
    const shipped = new Set(
      Object.entries(licences).flatMap(([licence, packages]) =>
        packages.flatMap(({ name, versions }) => versions.map((version) => `${name}@${version} ${licence}`)),
      ),
    );
    const stale = Object.entries(policy.exceptions)
      .filter(([id, { declared }]) => !shipped.has(`${id} ${declared}`))
      .map(([id]) => id);
    expect(stale).toEqual([]);
  });
});

describe("a process's bill of materials (CycloneDX)", () => {
  let text: string;
  let bom: {
    metadata: { component: { name: string; 'bom-ref': string } };
    components: Array<{
      name: string;
      version: string;
      purl: string;
      licenses?: unknown[];
      'bom-ref': string;
    }>;
    dependencies: Array<{ ref: string; dependsOn?: string[] }>;
  };
  beforeAll(async () => {
    const [payment] = await listProduction(['services/payment']);
    text = serialize(billOfMaterials(payment!));
    bom = JSON.parse(text) as typeof bom;
  }, 60_000);

  test("is valid CycloneDX 1.6 by the specification's own schema", async () => {
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text)).toBeNull();
  });

  test("lists the production dependencies at the lockfile's versions, with package URLs and licences, and no development tool", () => {
    const lockfile = readFileSync(join(repoRoot, 'pnpm-lock.yaml'), 'utf8');
    const pg = bom.components.find(({ name }) => name === 'pg')!;
    expect(pg.purl).toBe(`pkg:npm/pg@${pg.version}`);
    expect(pg.licenses).toEqual([{ license: { id: 'MIT' } }]);
    expect(lockfile).toContain(`pg@${pg.version}:`);
    const scoped = bom.components.find(({ name }) => name === '@opentelemetry/api')!;
    expect(scoped.purl).toBe(`pkg:npm/%40opentelemetry/api@${scoped.version}`);
    for (const name of ['amqplib', 'typeorm', 'joi', 'pino', 'pg-protocol'])
      expect(bom.components.map((c) => c.name)).toContain(name);
    for (const name of ['tsx', 'esbuild', 'jest', 'typescript', '@gateway/testkit'])
      expect(bom.components.map((c) => c.name)).not.toContain(name);
    // The workspace's libraries are inside the compiled file: listed with their version, as no npm package.
    const library = bom.components.find(({ name }) => name === '@gateway/messaging')!;
    expect(library).toMatchObject({ version: '0.1.0', description: 'compiled into the process' });
    expect(library.purl).toBeUndefined();
  });

  test('says who depends on whom: the service on its direct dependencies, pg on pg-protocol', () => {
    const dependsOn = (ref: string) => bom.dependencies.find((d) => d.ref === ref)?.dependsOn ?? [];
    const ref = (name: string) => bom.components.find((c) => c.name === name)!['bom-ref'];
    expect(bom.metadata.component.name).toBe('@gateway/payment');
    expect(dependsOn(bom.metadata.component['bom-ref'])).toEqual(
      expect.arrayContaining([ref('pg'), ref('joi')]),
    );
    expect(dependsOn(ref('pg'))).toContain(ref('pg-protocol'));
  });
});
