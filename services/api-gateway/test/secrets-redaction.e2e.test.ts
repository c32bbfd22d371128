import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  freePort,
  SPAN_KIND,
  stackWithMerchantForTheseTests,
  startOtlpReceiver,
  waitFor,
  type OtlpReceiver,
} from '@gateway/testkit';

/**
 * The whole stack at LOG_LEVEL=debug with tracing on (OTLP/HTTP in its default encoding, protobuf) runs the flows that
 * handle secrets: a business's API key, a webhook's signing secret, the PSP's OAuth client secret and access tokens,
 * the PSP callback's token, the operator token, customers' full CPF and CNPJ, and keys in the path of the PSP's and
 * the Solana RPC's URLs (QuickNode's `/<token>/`, Alchemy's `/v2/<key>`: proxies here strip them on the way). None of
 * them may appear in any log line of any process, nor in any attribute, event or name of any exported span.
 */
describe('secrets never reach the logs or the traces', () => {
  const pspClientId = 'psp-client-of-the-redaction-test';
  const pspClientSecret = `psp-client-secret-${randomBytes(12).toString('hex')}`;
  const callbackToken = `callback-token-${randomBytes(12).toString('hex')}`;
  const pspPathToken = `psp-path-token-${randomBytes(12).toString('hex')}`;
  const rpcKey = `rpc-key-${randomBytes(12).toString('hex')}`;
  const sealingKey = randomBytes(32).toString('base64');
  const cpf = { formatted: '529.982.247-25', digits: '52998224725' };
  const cnpj = { formatted: '11.222.333/0001-81', digits: '11222333000181' };
  /** A key of the right shape that no business has. */
  const unknownApiKey = `sk_test_${randomBytes(24).toString('base64url')}`;
  const pspTokens: string[] = [];
  /** Requests to the PSP or the chain that carried a trace header of ours (none may: they are third parties). */
  const traceHeadersSent: string[] = [];
  let otlp: OtlpReceiver;
  let pspProxy: Server;
  let rpcProxy: Server;
  /** Where the PSP simulator and the local chain listen, behind the proxies. */
  let pspPort: number;
  let rpcPort: number;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    // The adapter reaches the PSP simulator through this proxy, which keeps the access tokens the PSP issues, and the
    // watcher the local chain through the other; both take a key in the path, as hosted providers do.
    [pspPort, rpcPort] = [await freePort(), await freePort()];
    pspProxy = await pathKeyProxy(`/${pspPathToken}`, pspPort, (path, headers, answer) => {
      if (headers.traceparent) traceHeadersSent.push(`PSP ${path}`);
      if (path.startsWith('/oauth/token') && answer.status === 200)
        pspTokens.push((JSON.parse(answer.body.toString('utf8')) as { access_token: string }).access_token);
    });
    rpcProxy = await pathKeyProxy(`/v2/${rpcKey}`, rpcPort, (path, headers) => {
      if (headers.traceparent) traceHeadersSent.push(`Solana RPC ${path}`);
    });
  });
  const fee = { percent_bps: 99, fixed_centavos: 0 };
  const live = stackWithMerchantForTheseTests({
    name: 'Loja Sigilosa',
    feeRules: { pix: fee, crypto: fee },
    webhookEvents: ['payment.created', 'payment.confirmed'],
    extraEnv: () => ({
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      PSP_SIMULATOR_PORT: String(pspPort),
      PSP_BASE_URL: `http://127.0.0.1:${(pspProxy.address() as AddressInfo).port}/${pspPathToken}`,
      SOLANA_LOCALNET_PORT: String(rpcPort),
      SOLANA_RPC_URL: `http://127.0.0.1:${(rpcProxy.address() as AddressInfo).port}/v2/${rpcKey}`,
      PSP_CLIENT_ID: pspClientId,
      PSP_CLIENT_SECRET: pspClientSecret,
      CALLBACK_TOKEN: callbackToken,
      WEBHOOK_SECRET_KEY: sealingKey,
    }),
  });
  // Declared after the stack's hooks, so they close once the stack has stopped.
  afterAll(async () => {
    await new Promise((resolve) => pspProxy?.close(resolve));
    await new Promise((resolve) => rpcProxy?.close(resolve));
    await otlp?.close();
  });

  const api = (method: string, path: string, body?: unknown, key = live.apiKey) =>
    live.client.api(key, method, path, body);

  test('API keys, webhook secrets, PSP credentials and tokens and full document numbers appear in no log line and no span', async () => {
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

    const { payment_id: paymentId } = await live.client.createPayment(live.apiKey, {
      payment_method: 'pix',
      amount: 4990,
      customer_id: person.body.customer_id,
    });
    await live.client.payInSandbox(live.apiKey, paymentId);
    const { payment_id: cryptoId } = await live.client.createPayment(live.apiKey, {
      payment_method: 'crypto',
      amount: 2500,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    await live.client.payInSandbox(live.apiKey, cryptoId);
    for (const id of [paymentId, cryptoId]) await live.receiver.delivered('payment.confirmed', id, 45_000);
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
    // The calls to the PSP and to the chain were traced, each span naming the host it called, no path.
    for (const [service, prefix] of [
      ['pix-adapter', 'PSP '],
      ['solana-watcher', 'Solana RPC '],
    ] as const)
      expect(
        await waitFor(
          () =>
            otlp.spans.find(
              (span) =>
                span.service === service && span.name.startsWith(prefix) && span.kind === SPAN_KIND.client,
            ),
          { timeoutMs: 15_000, what: `a span of ${service} calling out` },
        ),
      ).toMatchObject({ attributes: { 'server.address': '127.0.0.1', 'url.scheme': 'http' } });
    expect(traceHeadersSent).toEqual([]);
    expect(new Set(otlp.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    expect(pspTokens.length).toBeGreaterThan(0);
    // Debug lines were written, so the quietest level had its chance to leak.
    const logs = live.stack.logs.join('');
    expect(logs).toMatch(/"level":20/);

    const secrets = {
      'API key': live.apiKey,
      'API key presented and refused': unknownApiKey,
      'webhook secret': live.webhookSecret,
      'webhook sealing key': sealingKey,
      'PSP client secret': pspClientSecret,
      'PSP basic credentials': Buffer.from(`${pspClientId}:${pspClientSecret}`).toString('base64'),
      ...Object.fromEntries(pspTokens.map((token, i) => [`PSP access token ${i + 1}`, token])),
      'PSP callback token': callbackToken,
      'token in the path of the PSP URL': pspPathToken,
      'key in the path of the Solana RPC URL': rpcKey,
      'operator token': live.stack.adminToken,
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

/**
 * A hosted provider's URL, `http://127.0.0.1:<its port><keyPath>/...`, in front of a local stand-in on `targetPort`: the
 * key path is stripped on the way (refused without it), and `seen` sees each exchange.
 */
async function pathKeyProxy(
  keyPath: string,
  targetPort: number,
  seen: (path: string, headers: IncomingHttpHeaders, answer: { status: number; body: Buffer }) => void,
): Promise<Server> {
  const proxy = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      if (!req.url?.startsWith(keyPath)) {
        res.writeHead(401).end();
        return;
      }
      const path = req.url.slice(keyPath.length) || '/';
      const exchange = await fetch(`http://127.0.0.1:${targetPort}${path}`, {
        method: req.method,
        headers: forwardable(req.headers),
        body: req.method === 'GET' || req.method === 'DELETE' ? undefined : Buffer.concat(chunks),
      })
        .then(async (answer) => ({ answer, body: Buffer.from(await answer.arrayBuffer()) }))
        .catch(() => undefined);
      if (!exchange) {
        // The stand-in behind it is gone (it stops before the services do): a gateway in front answers 502.
        res.writeHead(502).end();
        return;
      }
      const { answer, body } = exchange;
      seen(path, req.headers, { status: answer.status, body });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

/** The request's headers as the PSP should see them; fetch sets the hop's own. */
function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name, value]) => !hopByHop.has(name) && typeof value === 'string')
      .map(([name, value]) => [name, value as string]),
  );
}
