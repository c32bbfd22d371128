import {
  SPAN_KIND,
  stackWithMerchantForTheseTests,
  startOtlpReceiver,
  waitFor,
  type ExportedSpan,
  type OtlpReceiver,
} from '@gateway/testkit';

/**
 * The whole stack exporting its spans over OTLP/HTTP (`http/json`) to a receiver in this test: one PIX payment, from
 * the merchant's request to the signed webhooks, paid in the sandbox through the PSP's callback, is one trace.
 */
describe('one trace per payment, from the gateway request to the webhook attempt', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  const live = stackWithMerchantForTheseTests({
    name: 'Padaria Rastreada',
    feeRules: {
      pix: { percent_bps: 99, fixed_centavos: 0 },
      crypto: { percent_bps: 150, fixed_centavos: 0 },
    },
    webhookEvents: ['payment.created', 'payment.confirmed'],
    extraEnv: () => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // The SDK's own batching delay (5 s by default), read by the SDK itself.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    }),
  });
  // Declared after the stack's hooks, so it closes once the stack has stopped (and exported its last spans).
  afterAll(async () => {
    await otlp?.close();
  });

  test('a PIX payment paid through the PSP callback is one trace with the gateway request as its only root', async () => {
    const { payment_id: paymentId } = await live.client.createPayment(live.apiKey, {
      payment_method: 'pix',
      amount: 2590,
    });
    await live.client.payInSandbox(live.apiKey, paymentId);
    await live.receiver.delivered('payment.confirmed', paymentId);

    // The PIX the callback reported, processed in the trace the payment was created in.
    const pixReceived = await waitFor(
      () =>
        otlp.spans.find(
          (span) =>
            span.name === 'pix received' &&
            span.attributes['gateway.payment_id'] === paymentId &&
            span.attributes['gateway.pix.source'] === 'callback',
        ),
      { timeoutMs: 15_000, what: 'the span of the PIX the callback reported' },
    );
    const traceId = pixReceived.traceId;
    const inTrace = () => otlp.spans.filter((span) => span.traceId === traceId);
    const attempt = (type: string) =>
      inTrace().find((span) => span.name === `webhook ${type}` && span.service === 'webhook-dispatcher');
    // Parents end after their children: wait until every span of the trace has its parent in it.
    const trace = await waitFor(
      () => {
        const spans = inTrace();
        const ids = new Set(spans.map((span) => span.spanId));
        const complete =
          attempt('payment.created') &&
          attempt('payment.confirmed') &&
          spans.every((span) => span.parentSpanId === undefined || ids.has(span.parentSpanId));
        return complete && spans;
      },
      { timeoutMs: 20_000, what: `every span of trace ${traceId} with its parent` },
    );

    const roots = trace.filter((span) => span.parentSpanId === undefined);
    expect(roots.map(({ service, kind, name }) => ({ service, kind, name }))).toEqual([
      { service: 'api-gateway', kind: SPAN_KIND.server, name: 'POST /v1/payments' },
    ]);
    for (const service of ['api-gateway', 'payment', 'pix-adapter', 'webhook-dispatcher'])
      expect(trace.some((span) => span.service === service)).toBe(true);
    // The launcher names each process's instance after it (replicas would be `payment#2`...).
    for (const span of trace) expect(span.resource['service.instance.id']).toBe(span.service);

    // Each delivery attempt descends from the gateway's request, through every hop of the payment.
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const ancestry = (span: ExportedSpan): ExportedSpan[] =>
      span.parentSpanId === undefined ? [span] : [span, ...ancestry(byId.get(span.parentSpanId)!)];
    const confirmedPath = ancestry(attempt('payment.confirmed')!).map(
      (span) => `${span.service}: ${span.name}`,
    );
    expect(confirmedPath).toEqual(
      expect.arrayContaining([
        'webhook-dispatcher: webhook payment.confirmed',
        'webhook-dispatcher: process payment.confirmed.v1',
        'payment: publish payment.confirmed.v1',
        'payment: process pix.charge.paid.v1',
        'pix-adapter: publish pix.charge.paid.v1',
        'pix-adapter: pix received',
        'pix-adapter: process pix.charge.open.v1',
        'payment: call pix.charge.open.v1',
        'payment: process payment.create.v1',
        'api-gateway: call payment.create.v1',
        'api-gateway: POST /v1/payments',
      ]),
    );
    expect(confirmedPath.at(-1)).toBe('api-gateway: POST /v1/payments');
    expect(ancestry(attempt('payment.created')!).at(-1)).toBe(roots[0]);
    expect(attempt('payment.confirmed')).toMatchObject({
      kind: SPAN_KIND.client,
      attributes: { 'http.response.status_code': 204, 'gateway.webhook.attempt': 1 },
    });

    // The relay's publish continues the context stored with the outbox row: the span that emitted the message.
    const relayed = trace.find((span) => span.name === 'publish pix.charge.paid.v1')!;
    expect(relayed).toMatchObject({ kind: SPAN_KIND.producer, parentSpanId: pixReceived.spanId });

    // The confirmation links to the PSP callback's request, which is a trace of its own.
    expect(pixReceived.links).toHaveLength(1);
    const callback = otlp.spans.find((span) => span.spanId === pixReceived.links[0]!.spanId);
    expect(callback).toMatchObject({
      service: 'pix-adapter',
      kind: SPAN_KIND.server,
      traceId: pixReceived.links[0]!.traceId,
      attributes: { 'http.route': expect.stringMatching(/^\/webhook/) },
    });
    expect(callback!.traceId).not.toBe(traceId);
  }, 90_000);
  test('a USDC payment found on chain is confirmed in its creation trace, linked to the chain scan that found it', async () => {
    const { payment_id: paymentId } = await live.client.createPayment(live.apiKey, {
      payment_method: 'crypto',
      amount: 5000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    await live.client.payInSandbox(live.apiKey, paymentId);
    await live.receiver.delivered('payment.confirmed', paymentId, 45_000);
    const detected = await waitFor(
      () =>
        otlp.spans.find(
          (span) => span.name === 'transfer detected' && span.attributes['gateway.payment_id'] === paymentId,
        ),
      { timeoutMs: 15_000, what: 'the span of the transfer found on chain' },
    );
    const trace = await waitFor(
      () => {
        const spans = otlp.spans.filter((span) => span.traceId === detected.traceId);
        const ids = new Set(spans.map((span) => span.spanId));
        const complete =
          spans.some((span) => span.name === 'webhook payment.confirmed') &&
          spans.every((span) => span.parentSpanId === undefined || ids.has(span.parentSpanId));
        return complete && spans;
      },
      { timeoutMs: 20_000, what: `every span of trace ${detected.traceId} with its parent` },
    );
    expect(
      trace.filter((span) => span.parentSpanId === undefined).map(({ service, name }) => ({ service, name })),
    ).toEqual([{ service: 'api-gateway', name: 'POST /v1/payments' }]);
    expect(trace.find((span) => span.spanId === detected.parentSpanId)).toMatchObject({
      service: 'solana-watcher',
      name: 'process crypto.request.open.v1',
    });
    expect(detected.links).toHaveLength(1);
    expect(otlp.spans.find((span) => span.spanId === detected.links[0]!.spanId)).toMatchObject({
      service: 'solana-watcher',
      name: 'chain scan',
      traceId: detected.links[0]!.traceId,
    });
  }, 90_000);
});
