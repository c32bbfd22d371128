import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  createTestPki,
  freePort,
  startOtlpReceiver,
  startStack,
  waitFor,
  type OtlpReceiver,
  type RunningStack,
  type TestPki,
} from '@gateway/testkit';

/**
 * The whole stack at LOG_LEVEL=debug with tracing on (OTLP/HTTP in its default encoding, protobuf) runs the flows that
 * handle secrets: a business's API key, a webhook's signing secret, the PSP's OAuth client secret and access tokens,
 * the PSP callback's token, the operator token, and customers' full CPF and CNPJ. None of them may appear in any log
 * line of any process, nor in any attribute, event or name of any exported span.
 */
describe('secrets never reach the logs or the traces', () => {
  const pspClientId = 'psp-client-of-the-redaction-test';
  const pspClientSecret = `psp-client-secret-${randomBytes(12).toString('hex')}`;
  const callbackToken = `callback-token-${randomBytes(12).toString('hex')}`;
  const sealingKey = randomBytes(32).toString('base64');
  const cpf = { formatted: '529.982.247-25', digits: '52998224725' };
  const cnpj = { formatted: '11.222.333/0001-81', digits: '11222333000181' };
  /** A key of the right shape that no business has. */
  const unknownApiKey = `sk_test_${randomBytes(24).toString('base64url')}`;
  const pspTokens: string[] = [];
  const received: Array<{ type: string; paymentId: string }> = [];
  let otlp: OtlpReceiver;
  let pki: TestPki;
  let hooks: Server;
  let pspProxy: Server;
  let stack: RunningStack;
  let apiKey: string;
  let webhookSecret: string;

  const api = async (method: string, path: string, body?: unknown, key = apiKey) => {
    const response = await fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const admin = (method: string, path: string, body: unknown) =>
    fetch(`${stack.gatewayUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json() as Promise<Record<string, any>>);

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    pki = createTestPki();
    hooks = createHttpsServer({ key: pki.server.key, cert: pki.server.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.push({ type: event.type, paymentId: event.data?.payment_id });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    // The adapter reaches the PSP simulator through this proxy, which keeps the access tokens the PSP issues.
    const pspPort = await freePort();
    pspProxy = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const answer = await fetch(`http://127.0.0.1:${pspPort}${req.url}`, {
          method: req.method,
          headers: forwardable(req.headers),
          body: req.method === 'GET' || req.method === 'DELETE' ? undefined : Buffer.concat(chunks),
        });
        const body = Buffer.from(await answer.arrayBuffer());
        if (req.url?.startsWith('/oauth/token') && answer.ok)
          pspTokens.push((JSON.parse(body.toString('utf8')) as { access_token: string }).access_token);
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => pspProxy.listen(0, '127.0.0.1', resolve));
    stack = await startStack({
      NODE_EXTRA_CA_CERTS: pki.caPath,
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      PSP_SIMULATOR_PORT: String(pspPort),
      PSP_BASE_URL: `http://127.0.0.1:${(pspProxy.address() as AddressInfo).port}`,
      PSP_CLIENT_ID: pspClientId,
      PSP_CLIENT_SECRET: pspClientSecret,
      CALLBACK_TOKEN: callbackToken,
      WEBHOOK_SECRET_KEY: sealingKey,
    });
  }, 150_000);

  afterAll(async () => {
    if (process.env.E2E_LOGS) console.log(stack?.logs.join(''));
    await stack?.stop();
    await new Promise((resolve) => hooks?.close(resolve));
    await new Promise((resolve) => pspProxy?.close(resolve));
    await otlp?.close();
    pki?.remove();
  });

  test('API keys, webhook secrets, PSP credentials and tokens and full document numbers appear in no log line and no span', async () => {
    const business = await admin('POST', '/businesses', { name: 'Loja Sigilosa' });
    apiKey = business.api_key;
    await admin('PUT', `/businesses/${business.business_id}/fee-rules/pix`, {
      percent_bps: 99,
      fixed_centavos: 0,
    });
    const webhook = await api('POST', '/v1/webhook', {
      url: `https://localhost:${(hooks.address() as AddressInfo).port}/hooks`,
      events: ['payment.created', 'payment.confirmed'],
    });
    expect(webhook.status).toBe(201);
    webhookSecret = webhook.body.secret;
    const person = await api('POST', '/v1/customers', {
      email: 'ana@example.com',
      document_number: cpf.formatted,
    });
    const company = await api('POST', '/v1/customers', { document_number: cnpj.formatted });
    expect([person.status, company.status]).toEqual([201, 201]);
    expect((await api('GET', `/v1/customers/${person.body.customer_id}`)).body.document_number).toBe(
      cpf.digits,
    );
    expect((await api('GET', '/v1/payments', undefined, unknownApiKey)).status).toBe(401);

    const created = await api('POST', '/v1/payments', {
      payment_method: 'pix',
      amount: 4990,
      customer_id: person.body.customer_id,
    });
    expect(created.status).toBe(201);
    const paymentId: string = created.body.payment_id;
    expect(
      (await api('POST', `/v1/sandbox/payments/${paymentId}/simulate`, { outcome: 'paid' })).status,
    ).toBe(202);
    await waitFor(() => received.some((e) => e.type === 'payment.confirmed' && e.paymentId === paymentId), {
      timeoutMs: 30_000,
      what: 'the payment.confirmed webhook',
    });
    // What carried the secrets was traced and exported: the PSP's callback (its token in the query) and the attempts.
    const callback = await waitFor(
      () =>
        otlp.spans.find(
          (span) => span.service === 'pix-adapter' && span.attributes['url.path'] === '/webhook',
        ),
      { timeoutMs: 15_000, what: 'the span of the PSP callback request' },
    );
    expect(callback.attributes['url.query']).toBe('token=REDACTED');
    await waitFor(
      () =>
        otlp.spans.some(
          (span) => span.name === 'webhook payment.confirmed' && span.service === 'webhook-dispatcher',
        ),
      { timeoutMs: 15_000, what: 'the span of the payment.confirmed attempt' },
    );
    expect(new Set(otlp.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    expect(pspTokens.length).toBeGreaterThan(0);
    // Debug lines were written, so the quietest level had its chance to leak.
    const logs = stack.logs.join('');
    expect(logs).toMatch(/"level":20/);

    const secrets = {
      'API key': apiKey,
      'API key presented and refused': unknownApiKey,
      'webhook secret': webhookSecret,
      'webhook sealing key': sealingKey,
      'PSP client secret': pspClientSecret,
      'PSP basic credentials': Buffer.from(`${pspClientId}:${pspClientSecret}`).toString('base64'),
      ...Object.fromEntries(pspTokens.map((token, i) => [`PSP access token ${i + 1}`, token])),
      'PSP callback token': callbackToken,
      'operator token': stack.adminToken,
      'CPF as given': cpf.formatted,
      'CPF digits': cpf.digits,
      'CNPJ as given': cnpj.formatted,
      'CNPJ digits': cnpj.digits,
    };
    const spans = JSON.stringify(otlp.spans);
    const leaks = Object.entries(secrets).flatMap(([what, value]) => [
      ...(logs.includes(value) ? [`${what} in the logs`] : []),
      ...(spans.includes(value) ? [`${what} in the spans`] : []),
    ]);
    expect(leaks).toEqual([]);
  }, 120_000);
});

/** The request's headers as the PSP should see them; fetch sets the hop's own. */
function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name, value]) => !hopByHop.has(name) && typeof value === 'string')
      .map(([name, value]) => [name, value as string]),
  );
}
