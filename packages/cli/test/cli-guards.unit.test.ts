import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DeliveryTooLargeError, MAX_DELIVERY_BYTES, readBody } from '../src/commands/listen';
import { DEVELOPMENT_ADMIN_TOKEN, readEnvironment } from '../src/config';
import { run } from '../src/main';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** The CLI in this process, its output captured, with only the given environment. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: readEnvironment(env),
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** A stand-in gateway: records every request and answers with `handler`. */
describe('the CLI against a stand-in gateway', () => {
  let server: Server;
  let baseUrl: string;
  let seen: Seen[];
  let handler: Handler;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => void handler(req, res, Buffer.concat(chunks).toString()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
    handler = (_req, res) => json(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'unexpected' } });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('trigger refuses a key that is not a sandbox one before calling the gateway: exit 64', async () => {
    for (const apiKey of ['sk_live_0123456789abcdefghijklmnopqrstuvwxyz0123456', 'not-a-key']) {
      const ran = await cli(['--base-url', baseUrl, 'trigger', 'payment.confirmed'], {
        GATEWAY_API_KEY: apiKey,
      });
      expect(ran.code).toBe(64);
      expect(ran.stderr).toMatch(/trigger only runs with a sandbox business's API key \(sk_test_\.\.\.\)/);
      expect(ran.stderr).not.toContain(apiKey);
    }
    const flag = await cli(['--base-url', baseUrl, '--api-key', 'sk_live_x', 'trigger', 'refund.failed']);
    expect(flag.code).toBe(64);
    expect(seen).toEqual([]);
  });

  test('listen refuses a key that is not a sandbox one before calling the gateway or making its CA: exit 64', async () => {
    const tlsDir = join(mkdtempSync(join(tmpdir(), 'cli-guards-')), 'tls');
    try {
      const live = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyz0123456';
      for (const [apiKey, kind] of [
        [live, 'a production key (sk_live_...)'],
        ['not-a-key', 'not a sandbox key'],
      ] as const) {
        const ran = await cli(['--base-url', baseUrl, 'listen', '--tls-dir', tlsDir], {
          GATEWAY_API_KEY: apiKey,
        });
        expect(ran.code).toBe(64);
        expect(ran.stderr).toContain(
          `listen only runs with a sandbox business's API key (sk_test_...); this is ${kind}, with which it ` +
            'would register a production webhook pointing at this machine. Nothing was sent.',
        );
        expect(ran.stderr).not.toContain(apiKey);
      }
      const flag = await cli([
        '--base-url',
        baseUrl,
        '--api-key',
        live,
        'listen',
        '--forward-to',
        'http://127.0.0.1:9/',
      ]);
      expect(flag.code).toBe(64);
      expect(seen).toEqual([]);
      expect(existsSync(tlsDir)).toBe(false);
      expect(process.listenerCount('SIGINT')).toBe(0);
    } finally {
      rmSync(join(tlsDir, '..'), { recursive: true, force: true });
    }
  });

  test('--field prints one field of the result as it is, for a shell variable; a field it lacks is exit 1', async () => {
    const id = 'pay_0123456789abcdefghijklmn';
    handler = (_req, res) =>
      json(res, 200, {
        payment_id: id,
        status: 'processing',
        pix: { copia_e_cola: '000201...' },
        amount_brl: 50,
      });
    const key = { GATEWAY_API_KEY: 'sk_test_x' };
    const field = (name: string) => cli(['--base-url', baseUrl, 'payments', 'get', id, '--field', name], key);
    expect(await field('payment_id')).toEqual({ code: 0, stdout: `${id}\n`, stderr: '' });
    expect((await field('pix.copia_e_cola')).stdout).toBe('000201...\n');
    expect((await field('amount_brl')).stdout).toBe('50\n');
    expect((await field('pix')).stdout).toBe('{"copia_e_cola":"000201..."}\n');
    const missing = await field('refund_id');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the result has no field refund_id');
  });

  test('payments wait polls until the status, and fails at once when the payment ends in another one', async () => {
    const id = 'pay_0123456789abcdefghijklmn';
    const statuses = ['processing', 'processing', 'paid'];
    handler = (_req, res) => json(res, 200, { payment_id: id, status: statuses.shift() ?? 'paid' });
    const key = { GATEWAY_API_KEY: 'sk_test_x' };
    const paid = await cli(
      ['--base-url', baseUrl, 'payments', 'wait', id, '--status', 'paid', '--field', 'status'],
      key,
    );
    expect(paid).toEqual({ code: 0, stdout: 'paid\n', stderr: '' });
    expect(seen).toHaveLength(3);

    seen = [];
    handler = (_req, res) => json(res, 200, { payment_id: id, status: 'failed' });
    const failed = await cli(['--base-url', baseUrl, 'payments', 'wait', id, '--status', 'paid'], key);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`payment ${id} is failed, a final status: it will not be paid`);
    expect(seen).toHaveLength(1);
  });

  test('the development admin token goes to a gateway on localhost only; any other needs its token given', async () => {
    handler = (_req, res) => json(res, 200, { business_id: 'biz_1', name: 'Padaria', api_keys: [] });
    for (const url of [baseUrl, baseUrl.replace('127.0.0.1', 'localhost')]) {
      const local = await cli(['--json', 'admin', 'show-business', 'biz_1'], { GATEWAY_URL: url });
      expect(local.code).toBe(0);
    }
    expect(seen.map((request) => request.authorization)).toEqual([
      `Bearer ${DEVELOPMENT_ADMIN_TOKEN}`,
      `Bearer ${DEVELOPMENT_ADMIN_TOKEN}`,
    ]);

    seen = [];
    const remote = await cli(['admin', 'show-business', 'biz_1'], {
      GATEWAY_URL: 'https://gateway.example.com',
    });
    expect(remote.code).toBe(64);
    expect(remote.stderr).toContain(
      'admin commands against gateway.example.com need the operator token: --admin-token or ADMIN_TOKEN',
    );
    // Given a token, it is sent there (here: a name that never resolves, so no answer).
    const given = await cli(['--admin-token', 'x'.repeat(40), 'admin', 'show-business', 'biz_1'], {
      GATEWAY_URL: 'http://gateway.invalid',
    });
    expect(given.code).toBe(1);
    expect(given.stderr).toContain('cannot reach the gateway');
    expect(seen).toEqual([]);
  });

  test('revoke-key takes a key prefix that begins with a dash as the prefix, not an option', async () => {
    handler = (_req, res) => json(res, 200, { revoked: true });
    const revoked = await cli(['--json', 'admin', 'revoke-key', '-IHbFvBK0zwx'], { GATEWAY_URL: baseUrl });
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'DELETE /admin/v1/api-keys/-IHbFvBK0zwx',
    ]);
  });

  test('roll-key takes a dashed prefix and the overlap; issue-key sends the scopes given as a list', async () => {
    const bodies: string[] = [];
    handler = (_req, res, body) => {
      bodies.push(body);
      json(res, 201, { key_prefix: 'abcdefghijkl' });
    };
    const rolled = await cli(['--json', 'admin', 'roll-key', '-IHbFvBK0zwx', '--overlap', '60'], {
      GATEWAY_URL: baseUrl,
    });
    const issued = await cli(
      ['--json', 'admin', 'issue-key', 'biz_1', '--scopes', 'read_only,payouts:write'],
      {
        GATEWAY_URL: baseUrl,
      },
    );
    const unknown = await cli(['admin', 'issue-key', 'biz_1', '--overlap', '60'], { GATEWAY_URL: baseUrl });
    expect([rolled, issued].map((ran) => ran.code)).toEqual([0, 0]);
    expect(unknown.code).not.toBe(0);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /admin/v1/api-keys/-IHbFvBK0zwx/roll',
      'POST /admin/v1/businesses/biz_1/api-keys',
    ]);
    expect(bodies.map((body) => JSON.parse(body) as unknown)).toEqual([
      { expires_in_seconds: 60 },
      { scopes: ['read_only', 'payouts:write'] },
    ]);
  });

  test('listen refuses an oversized delivery, and reports the error that stopped it over a failed webhook deletion', async () => {
    const tlsDir = join(mkdtempSync(join(tmpdir(), 'cli-guards-')), 'tls');
    let oversized: number | string | undefined;
    let receiverPort = 0;
    handler = async (req, res, body) => {
      if (req.method === 'POST' && req.url === '/v1/webhook') {
        // The receiver's port, as listen registers it in the webhook's URL.
        const { url } = JSON.parse(body) as { url: string };
        receiverPort = Number(new URL(url).port);
        json(res, 201, {
          webhook_id: 'wh_1',
          business_id: 'biz_1',
          url,
          events: ['payment.created'],
          status: 'active',
          secret: 'whsec_c2VjcmV0',
          created_at: '2026-11-22T12:00:00.000Z',
          updated_at: '2026-11-22T12:00:00.000Z',
        });
      } else if (req.method === 'POST' && req.url === '/v1/webhook/wh_1/test') {
        oversized = await postOversized(tlsDir, receiverPort);
        json(res, 200, { event_id: 'evt_1', status_code: null, error: 'self-signed certificate in chain' });
      } else json(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'falha interna' } });
    };
    try {
      const ran = await cli([
        '--base-url',
        baseUrl,
        '--api-key',
        'sk_test_x',
        'listen',
        '--forward-to',
        'http://127.0.0.1:9/hook',
        '--tls-dir',
        tlsDir,
      ]);
      expect(oversized).toBe(413);
      // A first run: the CA is new, and nothing is said about one it replaced.
      expect(ran.stderr).toContain(`made listen's local CA (${join(tlsDir, 'ca.pem')}, valid 30 days)`);
      expect(ran.stderr).not.toMatch(/old|previous/);
      // The check that failed is shown failed, never ticked.
      expect(ran.stderr).toContain('✓ registering a temporary webhook wh_1');
      expect(ran.stderr).toContain('✗ checking the gateway reaches this listener');
      expect(ran.stderr).not.toContain('✓ checking');
      expect(ran.stdout).toContain(`not forwarded: larger than ${MAX_DELIVERY_BYTES} bytes`);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(/error the gateway could not deliver to https:\/\/localhost:\d+\//);
      expect(ran.stderr).toContain(
        'error the temporary webhook wh_1 was not deleted (INTERNAL_ERROR (HTTP 500)): gateway webhooks delete wh_1',
      );
      expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
        'POST /v1/webhook',
        'POST /v1/webhook/wh_1/test',
        'DELETE /v1/webhook/wh_1',
      ]);
      expect(process.listenerCount('SIGINT')).toBe(0);
    } finally {
      rmSync(join(tlsDir, '..'), { recursive: true, force: true });
    }
  });
});

/** Sends listen's receiver a delivery declared 2 MiB long; answers the status it got. */
function postOversized(tlsDir: string, port: number): Promise<number | string> {
  return new Promise((resolve) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        method: 'POST',
        path: '/',
        ca: readFileSync(join(tlsDir, 'ca.pem')),
        headers: { 'content-type': 'application/json', 'content-length': String(2 * MAX_DELIVERY_BYTES) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    outgoing.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    outgoing.flushHeaders();
  });
}

describe("listen's readBody", () => {
  test('reads a body up to the limit, and stops at the first chunk past it', async () => {
    const chunk = Buffer.alloc(400 * 1024, 'a');
    expect((await readBody(Readable.from([chunk, chunk]))).length).toBe(800 * 1024);
    let pulled = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          pulled += 1;
          yield chunk;
        }
      })(),
    );
    await expect(readBody(endless)).rejects.toBeInstanceOf(DeliveryTooLargeError);
    expect(pulled).toBeLessThanOrEqual(4);
  });

  test('listen --help says it works with a stack on this machine, and how to reach it from containers', async () => {
    const help = await cli(['listen', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Same machine only by default');
    expect(help.stdout).toContain('--host host.docker.internal --bind 0.0.0.0');
  });
});
