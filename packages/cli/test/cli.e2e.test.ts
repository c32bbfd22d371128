import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway, verifyWebhook, type Event, type PaymentEvent } from '@gateway/sdk';
import { startStack, waitFor, type RunningStack } from '@gateway/testkit';

const root = join(__dirname, '../../..');
const bin = join(__dirname, '../bin/gateway.cjs');
/** The start of every ANSI escape sequence (colours, cursor moves). */
const ESC = '\x1b[';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

interface AppRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The `gateway` binary as child processes against the whole stack: operator commands, merchant commands, `trigger`
 * driving sandbox payments to their events, and `listen` relaying the signed deliveries to a local app.
 */
describe('the gateway CLI against the whole stack', () => {
  let stack: RunningStack;
  let tlsDir: string;
  let caPath: string;
  let app: Server;
  let appUrl: string;
  const appRequests: AppRequest[] = [];
  /** How many of the next requests the local app answers 503. */
  let appFailures = 0;
  let businessId: string;
  let apiKey: string;
  let env: NodeJS.ProcessEnv;

  /** The CLI as a child process, its output piped (so not a terminal). */
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [bin, ...args],
        { env: { ...env, ...extraEnv }, timeout: 120_000 },
        (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        },
      );
    });

  const json = async (args: string[]): Promise<any> => {
    const ran = await cli(['--json', ...args]);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(ran.stdout);
  };

  beforeAll(async () => {
    tlsDir = mkdtempSync(join(tmpdir(), 'cli-listen-tls-'));
    env = { PATH: process.env.PATH, HOME: process.env.HOME };
    // The stack's dispatcher must trust listen's local CA: made first, by the command docs/sdk-and-cli.md gives for it.
    const ca = await cli(['listen-ca', '--tls-dir', tlsDir]);
    expect(ca.code).toBe(0);
    caPath = ca.stdout.trim();
    // Retries a second apart, so a test sees the dispatcher retry what the app refused.
    stack = await startStack({ NODE_EXTRA_CA_CERTS: caPath, WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s' });
    env = { ...env, GATEWAY_URL: stack.gatewayUrl, ADMIN_TOKEN: stack.adminToken };

    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        appRequests.push({ url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
        if (appFailures > 0) {
          appFailures -= 1;
          res.writeHead(503, { 'content-type': 'text/plain' }).end('app restarting');
        } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook`;

    const business = await json(['admin', 'create-business', 'Padaria', 'São', 'João']);
    businessId = business.business_id;
    apiKey = business.api_key;
    for (const method of ['pix', 'crypto']) await json(['admin', 'set-fee', businessId, method, '99', '0']);
    env = { ...env, GATEWAY_API_KEY: apiKey };
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await stack?.stop();
    await new Promise((resolve) => app?.close(resolve));
    rmSync(tlsDir, { recursive: true, force: true });
  });

  test('operator commands answer JSON with --json and aligned text when piped, and `pnpm admin` still answers JSON', async () => {
    expect(await json(['admin', 'show-business', businessId])).toMatchObject({
      business_id: businessId,
      name: 'Padaria São João',
      api_keys: [expect.objectContaining({ revoked_at: null })],
    });
    const issued = await json(['admin', 'issue-key', businessId]);
    expect(issued.api_key).toMatch(/^sk_test_/);
    expect(await json(['admin', 'revoke-key', issued.key_prefix])).toEqual({ revoked: true });

    const product = await cli([
      'admin',
      'create-product',
      businessId,
      'Pão de queijo',
      '1290',
      'Assado',
      'hoje',
    ]);
    expect(product.code).toBe(0);
    expect(product.stdout).toMatch(/^product_id\s+prod_/m);
    expect(product.stdout).toMatch(/^description\s+Assado hoje$/m);
    expect(product.stdout).not.toContain(ESC);

    const parked = await cli(['admin', 'parked']);
    expect(parked.stdout).toContain('total parked: 0');

    expect(await json(['admin', 'received-funds', '--kind', 'unreadable', '--status', 'held'])).toEqual({
      data: [],
      has_more: false,
    });
    expect((await cli(['admin', 'received-funds', '--kind', 'unreadable'])).stdout.trim()).toBe('(none)');
    expect((await cli(['admin', 'received-funds', '--kind', 'lost'])).code).toBe(64);

    // Reconciliation: run now, then read it back, alone and as the newest of the list.
    const reconciliation = await json(['admin', 'reconcile']);
    expect(reconciliation).toMatchObject({ id: expect.stringMatching(/^rec_/), status: 'completed' });
    expect(await json(['admin', 'reconciliation', reconciliation.id])).toEqual(reconciliation);
    expect((await json(['admin', 'reconciliations', '--limit', '1'])).data).toEqual([reconciliation]);
    const badPeriod = await cli(['admin', 'reconcile', '--from', 'yesterday']);
    expect(badPeriod).toMatchObject({ code: 1, stderr: expect.stringContaining('INVALID_FIELDS') });

    const compat = await new Promise<Ran>((resolve) =>
      execFile(
        join(root, 'node_modules/.bin/tsx'),
        [join(root, 'scripts/admin-cli.ts'), 'show-business', businessId],
        { env },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(JSON.parse(compat.stdout).business_id).toBe(businessId);

    const refused = await cli(['admin', 'show-business', businessId], { ADMIN_TOKEN: 'x'.repeat(40) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('UNAUTHORIZED (HTTP 401)');
    // Fifteen processes of the CLI, one after the other: past 90 s under the suite's load on two cores.
  }, 180_000);

  test('merchant commands create, read and list through the SDK; a gateway error is exit 1 with its code', async () => {
    const created = await json(['payments', 'create', '--amount', '4321']);
    expect(created).toMatchObject({ status: 'processing', amount: 43.21, pix: expect.any(Object) });
    expect(await json(['payments', 'get', created.payment_id])).toMatchObject({ amount_brl: 43.21 });
    const listed = await cli(['payments', 'list', '--limit', '1']);
    expect(listed.stdout).toMatch(
      new RegExp(`^PAYMENT_ID\\s.*\\sSTATUS\\s.*\\n${created.payment_id}\\s.*\\sprocessing\\s`, 'm'),
    );
    const all = await json(['payments', 'list', '--limit', '1', '--all']);
    expect(all.length).toBeGreaterThanOrEqual(1);
    expect(all.map((payment: { payment_id: string }) => payment.payment_id)).toContain(created.payment_id);

    const missing = await cli(['payments', 'get', 'pay_000000000000000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error NOT_FOUND \(HTTP 404\): .+\[request [\w-]+\]$/m);
    const tooSmall = await cli(['--json', 'payments', 'create', '--amount', '99']);
    expect(JSON.parse(tooSmall.stderr)).toMatchObject({ error: { code: 'INVALID_AMOUNT', status: 422 } });
  });

  test('trigger shows a spinner and colours in a terminal, plain progress when piped', async () => {
    // `script` gives the child a pseudo-terminal, as a developer's shell would.
    const command = [process.execPath, bin, 'trigger', 'payment.created'].map((arg) => `'${arg}'`).join(' ');
    const terminal = await new Promise<Ran>((resolve) =>
      execFile(
        'script',
        ['-qefc', command, '/dev/null'],
        { env: { ...env, TERM: 'xterm' } },
        (error, stdout) => resolve({ code: error ? 1 : 0, stdout, stderr: '' }),
      ),
    );
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toContain(ESC);
    // The spinner's first frame in cyan, drawn over the cleared line, then the step's green check mark.
    expect(terminal.stdout).toContain('\r\x1b[2K\x1b[36m⠋\x1b[39m creating a PIX payment');
    expect(terminal.stdout).toContain('\x1b[32m✓\x1b[39m creating a PIX payment');
    expect(terminal.stdout).toContain('Triggered');

    const piped = await cli(['trigger', 'payment.created']);
    expect(piped.code).toBe(0);
    expect(piped.stderr + piped.stdout).not.toContain(ESC);
    expect(piped.stderr).toMatch(/^✓ creating a PIX payment of R\$\s50,00 pay_\S+$/m);
    expect(piped.stdout).toMatch(/^Triggered payment\.created$/m);
  });

  test('listen relays each signed event to the local app as sent, shows its answer, and deletes its webhook on exit', async () => {
    const listen = spawn(process.execPath, [bin, 'listen', '--forward-to', appUrl, '--tls-dir', tlsDir], {
      env,
    });
    const output = collect(listen);
    try {
      const secret = await waitFor(() => /^signing secret\s+(whsec_\S+)$/m.exec(output.stdout())?.[1], {
        timeoutMs: 30_000,
        what: `listen to be ready:\n${output.stderr()}`,
      });
      expect(output.stdout()).toMatch(/Ready\. Forwarding webhook events to http:\/\/127\.0\.0\.1:\d+\/hook/);
      const gateway = new Gateway({ apiKey, baseUrl: stack.gatewayUrl });
      const [webhook] = (await gateway.webhooks.list()).data;
      expect(webhook).toMatchObject({ url: expect.stringMatching(/^https:\/\/localhost:\d+\/$/) });

      const received = (type: string, id: string) =>
        waitFor(
          () =>
            appRequests
              .map((request) => ({ request, event: verifyWebhook(request.body, request.headers, secret) }))
              .find(({ event }) => event.type === type && Object.values(event.data).includes(id)),
          { timeoutMs: 30_000, what: `the app to receive ${type} of ${id}` },
        );

      const confirmed = await cli(['--json', 'trigger', 'payment.confirmed']);
      expect(confirmed.code).toBe(0);
      const { event, payment } = JSON.parse(confirmed.stdout) as {
        event: Event;
        payment: { status: string };
      };
      expect(payment.status).toBe('paid');
      const delivery = await received('payment.confirmed', (event as PaymentEvent).data.payment_id);
      expect(delivery.event.id).toBe(event.id);
      expect(delivery.request.url).toBe('/hook');
      expect(delivery.request.headers).toMatchObject({
        'content-type': 'application/json',
        'webhook-id': event.id,
        'x-service-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      await waitFor(
        () =>
          new RegExp(`payment\\.confirmed\\s+${event.id} → \\[200\\] \\d+ ms \\{"received":true\\}`).test(
            output.stdout(),
          ),
        { what: "listen to show the app's answer" },
      );

      const expired = await cli(['--json', 'trigger', 'payment.expired', '--method', 'crypto']);
      expect(expired.code).toBe(0);
      const expiredEvent = (JSON.parse(expired.stdout) as { event: Event }).event;
      await received('payment.expired', (expiredEvent as PaymentEvent).data.payment_id);

      const refunded = await cli(['--json', 'trigger', 'refund.succeeded']);
      expect(refunded.code).toBe(0);
      const { refund } = JSON.parse(refunded.stdout) as { refund: { refund_id: string; status: string } };
      expect(refund.status).toBe('succeeded');
      await received('refund.succeeded', refund.refund_id);

      listen.kill('SIGINT');
      expect(await output.exit).toBe(0);
      expect(output.stderr()).toMatch(/✓ deleting the temporary webhook wh_/);
      expect((await gateway.webhooks.list()).data).toEqual([]);
    } finally {
      listen.kill('SIGKILL');
    }
  });

  test("listen --json prints its secret, then one line per delivery; the app's refusal goes back to the dispatcher, which retries", async () => {
    const listen = spawn(
      process.execPath,
      [bin, '--json', 'listen', '--forward-to', appUrl, '--tls-dir', tlsDir, '--events', 'payment.created'],
      { env },
    );
    const output = collect(listen);
    const lines = () =>
      output
        .stdout()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, any>);
    try {
      const ready = await waitFor(() => lines()[0], { timeoutMs: 30_000, what: 'the ready line' });
      expect(ready).toMatchObject({
        ready: true,
        secret: expect.stringMatching(/^whsec_/),
        events: ['payment.created'],
        forward_to: appUrl,
        ca_path: caPath,
      });
      appFailures = 1;
      const triggered = await cli(['--json', 'trigger', 'payment.created']);
      const { event } = JSON.parse(triggered.stdout) as { event: Event };
      const forwarded = await waitFor(
        () => {
          const ofEvent = lines().filter((line) => line.event_id === event.id);
          return ofEvent.length === 2 && ofEvent;
        },
        { timeoutMs: 20_000, what: 'the refused delivery and its retry' },
      );
      expect(forwarded).toEqual([
        expect.objectContaining({
          type: 'payment.created',
          status: 503,
          answer: 'app restarting',
          error: null,
        }),
        expect.objectContaining({ type: 'payment.created', status: 200, answer: '{"received":true}' }),
      ]);
      listen.kill('SIGTERM');
      expect(await output.exit).toBe(0);
      expect(output.stderr()).toBe('');
    } finally {
      listen.kill('SIGKILL');
    }
  });

  test('trigger brings about payment.failed, payment.cancelled and a crypto refund.failed', async () => {
    const failed = JSON.parse((await cli(['--json', 'trigger', 'payment.failed'])).stdout);
    expect({ type: failed.event.type, status: failed.payment.status }).toEqual({
      type: 'payment.failed',
      status: 'failed',
    });
    const cancelled = JSON.parse(
      (await cli(['--json', 'trigger', 'payment.cancelled', '--method', 'crypto'])).stdout,
    );
    expect({ type: cancelled.event.type, status: cancelled.payment.status }).toEqual({
      type: 'payment.cancelled',
      status: 'cancelled',
    });
    const refund = JSON.parse(
      (await cli(['--json', 'trigger', 'refund.failed', '--method', 'crypto'])).stdout,
    );
    expect({
      type: refund.event.type,
      status: refund.refund.status,
      of: refund.event.data.refund_id,
    }).toEqual({
      type: 'refund.failed',
      status: 'failed',
      of: refund.refund.refund_id,
    });
  });

  test('listen stops at once, its webhook deleted, when the gateway does not trust its certificate', async () => {
    const untrustedDir = mkdtempSync(join(tmpdir(), 'cli-untrusted-tls-'));
    try {
      const ran = await cli(['listen', '--forward-to', appUrl, '--tls-dir', untrustedDir]);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain(`NODE_EXTRA_CA_CERTS=${join(untrustedDir, 'ca.pem')}`);
      expect(ran.stderr).toMatch(/✓ deleting the temporary webhook wh_/);
      const gateway = new Gateway({ apiKey, baseUrl: stack.gatewayUrl });
      expect((await gateway.webhooks.list()).data).toEqual([]);
    } finally {
      rmSync(untrustedDir, { recursive: true, force: true });
    }
  });
});

function collect(child: ChildProcessWithoutNullStreams) {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    exit: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
  };
}
