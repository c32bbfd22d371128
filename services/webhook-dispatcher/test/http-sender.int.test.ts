import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { serializeDeliveryBody, signedDeliveryHeaders } from '../src/domain/payload';
import { type HostResolver, type WebhookSender, createWebhookSender } from '../src/clients/http-sender';
import { type DeliveryAttemptResult, classifyDeliveryResult } from '../src/domain/delivery-outcome';
import { generateWebhookSecret } from '../src/domain/signature';
import {
  TEST_HOSTNAME,
  type HttpsEndpoint,
  type TestPki,
  createTestPki,
  startHttpsEndpoint,
} from '@gateway/testkit';

const execFileAsync = promisify(execFile);

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface Receiver {
  endpoint: HttpsEndpoint;
  received: ReceivedRequest[];
  connections: number;
}

type Route = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const routes: Record<string, Route> = {
  '/ok': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'),
  '/fail': (_req, res) => res.writeHead(500).end('upstream exploded'),
  '/busy': (_req, res) => res.writeHead(503, { 'retry-after': '120' }).end(),
  '/big': (_req, res) => res.writeHead(200).end('x'.repeat(5_000)),
  '/hang': () => undefined,
  '/slow-body': (_req, res) => res.writeHead(200).write('partial'),
  '/reset': (req) => req.socket.destroy(),
  '/redirect': (req, res) => res.writeHead(302, { location: `https://${req.headers.host}/ok` }).end(),
};

async function startReceiver(tls: { key: string; cert: string }): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const endpoint = await startHttpsEndpoint(tls, (req, body, res) => {
    const path = new URL(req.url ?? '/', 'https://receiver').pathname;
    received.push({ method: req.method ?? '', path, headers: req.headers, body });
    const route = routes[path.split('/').slice(0, 2).join('/')] ?? ((_q, s) => s.writeHead(404).end());
    route(req, res, body);
  });
  const receiver: Receiver = { endpoint, received, connections: 0 };
  endpoint.server.on('connection', () => (receiver.connections += 1));
  return receiver;
}

/** A path unique to the calling test, so its assertions only see its own requests. */
function uniquePath(route: string): string {
  return `${route}/${randomBytes(6).toString('hex')}`;
}

function requestsTo(receiver: Receiver, path: string): ReceivedRequest[] {
  return receiver.received.filter((r) => r.path === path);
}

function expectError(result: DeliveryAttemptResult, error: string): void {
  expect(result).toMatchObject({ kind: 'error', error });
}

describe('webhook HTTP sender against local HTTPS receivers', () => {
  let pki: TestPki;
  let trusted: Receiver;
  let other: Receiver;
  let untrusted: Receiver;
  const senders: WebhookSender[] = [];

  function sender(overrides: Partial<Parameters<typeof createWebhookSender>[0]> = {}): WebhookSender {
    const created = createWebhookSender({
      allowPrivateTargets: true,
      maxConnectionsPerOrigin: 4,
      userAgent: 'gateway-webhooks/test',
      ca: pki.caPem,
      ...overrides,
    });
    senders.push(created);
    return created;
  }

  const url = (receiver: Receiver, path: string, host = '127.0.0.1'): string =>
    `https://${host}:${receiver.endpoint.port}${path}`;

  beforeAll(async () => {
    pki = createTestPki();
    [trusted, other, untrusted] = await Promise.all([
      startReceiver(pki.server),
      startReceiver(pki.server),
      startReceiver(pki.untrusted),
    ]);
  });

  afterAll(async () => {
    await Promise.all(senders.map((s) => s.close()));
    await Promise.all([trusted, other, untrusted].map((receiver) => receiver.endpoint.stop()));
    pki.remove();
  });

  it('delivers a POST whose signatures an independent receiver can verify, and reports success', async () => {
    const secret = generateWebhookSecret(randomBytes(32));
    const eventId = `evt_${randomBytes(12).toString('hex')}`;
    const body = serializeDeliveryBody({
      id: eventId,
      type: 'payment.created',
      createdAt: new Date().toISOString(),
      businessId: 'biz_int',
      data: {
        payment_id: `pay_${randomBytes(12).toString('hex')}`,
        transaction_id: null,
        business_id: 'biz_int',
        method: 'pix',
        status: 'processing',
        amount_brl: 50,
        fee_brl: 0.5,
        net_amount_brl: 49.5,
        external_id: null,
        failure_code: null,
        failure_reason: null,
        description: null,
        customer_id: null,
        refunded_amount_brl: 0,
        expires_at: new Date().toISOString(),
        payer: null,
        subscription_id: null,
        cycle: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      },
    });
    const headers = signedDeliveryHeaders({
      body,
      eventId,
      timestampSeconds: Math.floor(Date.now() / 1000),
      secret,
    });
    const path = uniquePath('/ok');

    const result = await sender().send({ url: url(trusted, path), headers, body });

    expect(result).toMatchObject({ kind: 'response', status: 200, bodySnippet: '{"received":true}' });
    expect(classifyDeliveryResult(result, Date.now())).toEqual({ kind: 'success' });
    const [received] = requestsTo(trusted, path);
    expect(received).toBeDefined();
    expect(received!.method).toBe('POST');
    expect(received!.headers['content-type']).toBe('application/json');
    expect(received!.headers['user-agent']).toBe('gateway-webhooks/test');
    expect(received!.body.equals(body)).toBe(true);
    const expectedHex = createHmac('sha256', secret).update(received!.body).digest('hex');
    expect(received!.headers['x-service-signature']).toBe(expectedHex);
    const wireHeaders = {
      'webhook-id': String(received!.headers['webhook-id']),
      'webhook-timestamp': String(received!.headers['webhook-timestamp']),
      'webhook-signature': String(received!.headers['webhook-signature']),
    };
    expect(wireHeaders['webhook-id']).toBe(eventId);
    expect(new Webhook(secret).verify(received!.body, wireHeaders)).toEqual(
      JSON.parse(body.toString('utf8')),
    );
  });

  it('reports a 500 as a response that is retried', async () => {
    const result = await sender().send({
      url: url(trusted, uniquePath('/fail')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(result).toMatchObject({ kind: 'response', status: 500, bodySnippet: 'upstream exploded' });
    expect(classifyDeliveryResult(result, Date.now())).toEqual({ kind: 'retry' });
  });

  it('passes Retry-After of a 503 through to the retry decision', async () => {
    const result = await sender().send({
      url: url(trusted, uniquePath('/busy')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(classifyDeliveryResult(result, Date.now())).toEqual({ kind: 'retry', retryAfterSeconds: 120 });
  });

  it('keeps only the first 2 KiB of a large response body', async () => {
    const result = await sender().send({
      url: url(trusted, uniquePath('/big')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(result.kind === 'response' && result.bodySnippet).toBe('x'.repeat(2_048));
  });

  it('gives up on an endpoint that never answers once the timeout has passed', async () => {
    const result = await sender({ timeoutMs: 400 }).send({
      url: url(trusted, uniquePath('/hang')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expectError(result, 'timeout');
    expect(result.latencyMs).toBeGreaterThanOrEqual(350);
    expect(result.latencyMs).toBeLessThan(3_000);
  });

  it('counts the body in the timeout: headers sent but a body that never ends is a timeout', async () => {
    const result = await sender({ timeoutMs: 400 }).send({
      url: url(trusted, uniquePath('/slow-body')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expectError(result, 'timeout');
  });

  it('reports a connection reset by the receiver as a connection error', async () => {
    const result = await sender().send({
      url: url(trusted, uniquePath('/reset')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expectError(result, 'connection');
    expect(classifyDeliveryResult(result, Date.now())).toEqual({ kind: 'retry' });
  });

  it('does not follow a redirect: the 302 is the result and the target is never called', async () => {
    const before = requestsTo(trusted, '/ok').length;
    const result = await sender().send({
      url: url(trusted, uniquePath('/redirect')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(result).toMatchObject({ kind: 'response', status: 302 });
    expect(classifyDeliveryResult(result, Date.now())).toEqual({ kind: 'retry' });
    expect(requestsTo(trusted, '/ok')).toHaveLength(before);
  });

  it('answers a healthy endpoint at once while another endpoint hangs', async () => {
    const shared = sender({ timeoutMs: 1_500 });
    const hanging = shared.send({
      url: url(other, uniquePath('/hang')),
      headers: {},
      body: Buffer.from('{}'),
    });
    const healthy = await shared.send({
      url: url(trusted, uniquePath('/ok')),
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(healthy).toMatchObject({ kind: 'response', status: 200 });
    expect(healthy.latencyMs).toBeLessThan(1_000);
    expectError(await hanging, 'timeout');
  });

  it('refuses a plain http URL without connecting', async () => {
    const connectionsBefore = trusted.connections;
    const result = await sender().send({
      url: `http://127.0.0.1:${trusted.endpoint.port}/ok`,
      headers: {},
      body: Buffer.from('{}'),
    });
    expectError(result, 'invalid_url');
    expect(trusted.connections).toBe(connectionsBefore);
  });

  describe('SSRF protection with private targets disallowed', () => {
    it.each([
      ['an IPv4 loopback literal', '127.0.0.1'],
      ['localhost (resolved by the system resolver)', 'localhost'],
    ])('refuses %s before any connection is made', async (_label, host) => {
      const connectionsBefore = trusted.connections;
      const result = await sender({ allowPrivateTargets: false }).send({
        url: url(trusted, uniquePath('/ok'), host),
        headers: {},
        body: Buffer.from('{}'),
      });
      expectError(result, 'ssrf_refused');
      expect(trusted.connections).toBe(connectionsBefore);
    });

    it('refuses an IPv6 loopback literal', async () => {
      const result = await sender({ allowPrivateTargets: false }).send({
        url: `https://[::1]:${trusted.endpoint.port}/ok`,
        headers: {},
        body: Buffer.from('{}'),
      });
      expectError(result, 'ssrf_refused');
    });

    it.each([
      ['resolves to a private address', [{ address: '10.1.2.3', family: 4 }]],
      ['resolves to the cloud metadata address', [{ address: '169.254.169.254', family: 4 }]],
      [
        'has one public and one loopback address',
        [
          { address: '93.184.216.34', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ],
      ],
      ['resolves to an IPv4-mapped loopback', [{ address: '::ffff:127.0.0.1', family: 6 }]],
    ])('refuses a hostname that %s', async (_label, addresses) => {
      const lookup = jest.fn<ReturnType<HostResolver>, Parameters<HostResolver>>(async () => addresses);
      const connectionsBefore = trusted.connections;
      const result = await sender({ allowPrivateTargets: false, lookup }).send({
        url: url(trusted, uniquePath('/ok'), TEST_HOSTNAME),
        headers: {},
        body: Buffer.from('{}'),
      });
      expectError(result, 'ssrf_refused');
      expect(lookup).toHaveBeenCalledWith(TEST_HOSTNAME);
      expect(trusted.connections).toBe(connectionsBefore);
    });

    it('connects to exactly the address the lookup returned (sandbox, private allowed)', async () => {
      const lookup: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const path = uniquePath('/ok');
      const result = await sender({ allowPrivateTargets: true, lookup }).send({
        url: url(trusted, path, TEST_HOSTNAME),
        headers: {},
        body: Buffer.from('{}'),
      });
      expect(result).toMatchObject({ kind: 'response', status: 200 });
      expect(requestsTo(trusted, path)[0]?.headers.host).toBe(`${TEST_HOSTNAME}:${trusted.endpoint.port}`);
    });

    it('reports a hostname that does not resolve as a DNS error', async () => {
      const lookup: HostResolver = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      const result = await sender({ allowPrivateTargets: false, lookup }).send({
        url: url(trusted, uniquePath('/ok'), TEST_HOSTNAME),
        headers: {},
        body: Buffer.from('{}'),
      });
      expectError(result, 'dns');
    });
  });

  describe('TLS verification', () => {
    it('fails against a certificate no trusted CA signed', async () => {
      const result = await sender().send({
        url: url(untrusted, uniquePath('/ok')),
        headers: {},
        body: Buffer.from('{}'),
      });
      expectError(result, 'tls');
      expect(requestsTo(untrusted, '/ok')).toHaveLength(0);
    });

    it('fails when the certificate does not name the host', async () => {
      const lookup: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const result = await sender({ lookup }).send({
        url: url(trusted, uniquePath('/ok'), 'not-in-the-cert.example.test'),
        headers: {},
        body: Buffer.from('{}'),
      });
      expectError(result, 'tls');
    });

    async function sendFromChildProcess(
      target: string,
      env: NodeJS.ProcessEnv,
    ): Promise<DeliveryAttemptResult> {
      const { stdout } = await execFileAsync(
        process.execPath,
        ['--import', 'tsx', join(__dirname, 'support', 'send-once.ts'), target],
        { cwd: join(__dirname, '..'), env, timeout: 20_000 },
      );
      return JSON.parse(stdout) as DeliveryAttemptResult;
    }

    it('trusts a CA added through NODE_EXTRA_CA_CERTS, and only then', async () => {
      const target = url(trusted, uniquePath('/ok'), 'localhost');
      const { NODE_EXTRA_CA_CERTS: _inherited, ...baseEnv } = process.env;

      const withoutCa = await sendFromChildProcess(target, baseEnv);
      const withCa = await sendFromChildProcess(target, { ...baseEnv, NODE_EXTRA_CA_CERTS: pki.caPath });

      expectError(withoutCa, 'tls');
      expect(withCa).toMatchObject({ kind: 'response', status: 200 });
    });
  });
});
