import { stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';
import {
  parseExposition,
  referencedServiceMetrics,
  servedNames,
  type Exposition,
  type Sample,
} from './support/observability';

/** What a merchant's key may send per minute in this stack: room for the test's own polling, not for its burst. */
const RATE_LIMIT_PER_MINUTE = 300;

/**
 * The metrics of issue 16 on a live stack: PIX and crypto payments confirmed with their webhooks delivered, a refund,
 * a cancel and a burst over the rate limit, then every service's metrics endpoint and the gateway's /metrics are
 * scraped as Prometheus would, and the named series must be there with their labels and sensible values; every metric
 * the alerts and the dashboard of infra/observability select must be served.
 */
describe('metrics of the whole stack', () => {
  const fee = { percent_bps: 100, fixed_centavos: 0 };
  const live = stackWithMerchantForTheseTests({
    name: 'Mercado Métricas',
    feeRules: { pix: fee, crypto: fee },
    webhookEvents: ['payment.confirmed', 'payment.cancelled', 'refund.succeeded'],
    extraEnv: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) },
  });
  let otherKey: string;
  const paymentIds: string[] = [];

  const api = (method: string, path: string, body?: unknown, key = live.apiKey) =>
    live.client.api(key, method, path, body);

  const newPayment = async (body: Record<string, unknown>): Promise<string> => {
    const { payment_id: paymentId } = await live.client.createPayment(live.apiKey, body);
    paymentIds.push(paymentId);
    return paymentId;
  };

  /** A payment paid by the sandbox's payer, and its payment.confirmed webhook delivered. */
  const paidWithWebhook = async (body: Record<string, unknown>): Promise<string> => {
    const paymentId = await newPayment(body);
    await live.client.payInSandbox(live.apiKey, paymentId);
    await live.client.paymentIn(live.apiKey, paymentId, 'paid');
    await live.receiver.delivered('payment.confirmed', paymentId);
    return paymentId;
  };

  const scrape = async (url: string): Promise<Exposition> => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  };

  /** Every endpoint Prometheus scrapes: each service's metrics listener and the gateway's /metrics. */
  const scrapeAll = async (): Promise<Record<string, Exposition>> => {
    const urls: Record<string, string> = { ...live.stack.metricsUrls, 'api-gateway': live.stack.gatewayUrl };
    const scraped = await Promise.all(
      Object.entries(urls).map(async ([name, url]) => [name, await scrape(url)]),
    );
    return Object.fromEntries(scraped) as Record<string, Exposition>;
  };

  const series = (exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] =>
    exposition.samples.filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    );
  const value = (exposition: Exposition, name: string, labels: Record<string, string> = {}): number =>
    series(exposition, name, labels).reduce((sum, sample) => sum + sample.value, 0);

  beforeAll(async () => {
    ({ apiKey: otherKey } = await live.client.createBusiness('Loja Apressada'));
  });

  test('after PIX and crypto payments, a refund, a cancel and a burst over the limit, every service serves the named series with their labels and counts', async () => {
    const pixId = await paidWithWebhook({ payment_method: 'pix', amount: 12345 });
    await paidWithWebhook({
      payment_method: 'crypto',
      amount: 10000,
      crypto: { currency: 'usdc', network: 'solana' },
    });
    const refund = await api('POST', `/v1/payments/${pixId}/refunds`, { amount: 2345 });
    expect(refund.status).toBe(201);
    await live.receiver.delivered('refund.succeeded', refund.body.refund_id);
    const cancelledId = await newPayment({ payment_method: 'pix', amount: 3000 });
    expect((await api('POST', `/v1/payments/${cancelledId}/cancel`)).status).toBe(200);
    await live.receiver.delivered('payment.cancelled', cancelledId);
    // Another merchant goes over its limit.
    let refused = 0;
    for (let batch = 0; batch < 7; batch += 1) {
      const statuses = await Promise.all(
        Array.from(
          { length: 50 },
          async () => (await api('GET', '/v1/payments?limit=1', undefined, otherKey)).status,
        ),
      );
      refused += statuses.filter((status) => status === 429).length;
    }
    expect(refused).toBeGreaterThan(0);
    // An operator lists every service's parked messages through the gateway: that must not make the gateway report them.
    expect((await live.client.admin('GET', '/admin/v1/parked')).queues.length).toBeGreaterThan(0);

    // The parked and retry gauges are refreshed every 30 s: the first refresh may come before the queues exist. Every
    // service but the gateway (which consumes no queue of its own) has parking queues.
    const scraped = await waitFor(
      async () => {
        const all = await scrapeAll();
        const gauged = Object.entries(all).every(
          ([service, exposition]) =>
            (service === 'api-gateway' || series(exposition, 'broker_parked_messages').length > 0) &&
            series(exposition, 'broker_retry_backlog_messages').length > 0,
        );
        // The cob's removal follows payment.cancelled in the PIX adapter, independently of the webhook waited for.
        const cobRemoved =
          value(all['pix-adapter']!, 'pix_psp_request_duration_seconds_count', {
            operation: 'cob.remove',
            outcome: 'ok',
          }) > 0;
        return gauged && cobRemoved && all;
      },
      {
        timeoutMs: 45_000,
        intervalMs: 1000,
        what: "the parked and retry gauges of every service, and the cancelled payment's cob removed",
      },
    );
    const payment = scraped.payment!;
    const dispatcher = scraped['webhook-dispatcher']!;
    const pix = scraped['pix-adapter']!;
    const watcher = scraped['solana-watcher']!;
    const gateway = scraped['api-gateway']!;

    // Each transition once: three created (two PIX, one crypto), one confirmed of each, one cancelled.
    const events = (method: string, event: string) =>
      value(payment, 'payment_events_total', { method, event });
    expect({
      pixCreated: events('pix', 'created'),
      cryptoCreated: events('crypto', 'created'),
      pixConfirmed: events('pix', 'confirmed'),
      cryptoConfirmed: events('crypto', 'confirmed'),
      pixCancelled: events('pix', 'cancelled'),
      expired: events('pix', 'expired') + events('crypto', 'expired'),
    }).toEqual({
      pixCreated: 2,
      cryptoCreated: 1,
      pixConfirmed: 1,
      cryptoConfirmed: 1,
      pixCancelled: 1,
      expired: 0,
    });
    expect(value(payment, 'payment_refunds_total', { method: 'pix', outcome: 'requested' })).toBe(1);
    expect(value(payment, 'payment_refunds_total', { method: 'pix', outcome: 'succeeded' })).toBe(1);
    for (const method of ['pix', 'crypto']) {
      expect(value(payment, 'payment_created_to_confirmed_seconds_count', { method })).toBe(1);
      expect(value(payment, 'payment_created_to_confirmed_seconds_sum', { method })).toBeGreaterThan(0);
      // Nothing of this stack is open past its window.
      expect(value(payment, 'payment_stuck_payments', { method })).toBe(0);
      expect(series(payment, 'payment_stuck_payment_oldest_seconds', { method })).toHaveLength(1);
      // Timed when delivered, each confirmation once (one webhook).
      expect(value(dispatcher, 'webhook_confirmed_to_delivered_seconds_count', { method })).toBe(1);
    }
    expect(
      value(dispatcher, 'webhook_delivery_attempts_total', { outcome: 'delivered' }),
    ).toBeGreaterThanOrEqual(4);
    expect(value(dispatcher, 'webhook_delivery_attempt_duration_seconds_count')).toBeGreaterThanOrEqual(4);

    // Rails: the PSP by operation, the chain by method.
    const psp = (operation: string) =>
      value(pix, 'pix_psp_request_duration_seconds_count', { operation, outcome: 'ok' });
    expect({
      token: psp('oauth.token') >= 1,
      created: psp('cob.create'),
      paid: psp('sandbox.pay'),
      refunded: psp('devolucao.request'),
      removed: psp('cob.remove'),
    }).toEqual({ token: true, created: 2, paid: 1, refunded: 1, removed: 1 });
    expect(value(pix, 'pix_psp_request_duration_seconds_sum')).toBeGreaterThan(0);
    const rpcMethods = new Set(
      series(watcher, 'solana_watcher_rpc_request_duration_seconds_count', { outcome: 'ok' }).map(
        (sample) => sample.labels.method,
      ),
    );
    expect(rpcMethods).toContain('getSignaturesForAddress');

    // The edge: rate-limit rejections by limit, HTTP latency by route.
    expect(value(gateway, 'api_gateway_rate_limited_requests_total', { limit: 'api' })).toBe(refused);
    expect(
      value(gateway, 'http_request_duration_seconds_count', { route: '/v1/payments', status_code: '201' }),
    ).toBe(3);

    // Messaging, per service: the outbox backlog and its oldest row, parked messages per queue, the retry backlog.
    for (const [service, exposition] of Object.entries(scraped)) {
      expect({ service, outbox: series(exposition, 'outbox_unpublished_messages').length }).toEqual({
        service,
        outbox: 1,
      });
      expect({ service, age: value(exposition, 'outbox_oldest_unpublished_age_seconds') < 60 }).toEqual({
        service,
        age: true,
      });
      expect({
        service,
        delayQueues: series(exposition, 'broker_retry_backlog_messages').map((s) => s.labels.queue),
      }).toEqual({
        service,
        delayQueues: expect.arrayContaining([expect.stringMatching(/retry\.delay-1000ms$/)]),
      });
    }
    expect(series(payment, 'broker_parked_messages').map((sample) => sample.labels.queue)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/payment\.commands$/),
        expect.stringMatching(/payment\.events$/),
      ]),
    );
    expect(value(payment, 'broker_parked_messages')).toBe(0);
    // Each service reports the parking queues of what it consumes: the gateway its events queue (its payment copies).
    expect(series(gateway, 'broker_parked_messages').map((sample) => sample.labels.queue)).toEqual([
      expect.stringMatching(/\.api-gateway\.events$/),
    ]);
    // The paid payments were read until paid (paymentIn), from the copies and from the payment service, and the
    // payment events of the run reached the copies.
    expect(value(gateway, 'gateway_payment_reads_total', { answered_from: 'copy' })).toBeGreaterThan(0);
    expect(value(gateway, 'gateway_payment_copy_lag_seconds_count')).toBeGreaterThanOrEqual(
      paymentIds.length,
    );
    // The gateway reads the payment change feed to its end every second (its lists come from the copies).
    expect(value(gateway, 'gateway_payment_change_feed_age_seconds')).toBeLessThan(10);
    expect(
      series(pix, 'broker_parked_messages').filter(
        (sample) => !/pix-adapter\.\w+$/.test(sample.labels.queue!),
      ),
    ).toEqual([]);
    // Every series says which service it is from, whoever scrapes it.
    for (const [service, exposition] of Object.entries(scraped))
      expect({
        service,
        labelled: [...new Set(exposition.samples.map((sample) => sample.labels.service))],
      }).toEqual({
        service,
        labelled: [service],
      });

    // Low cardinality: no label anywhere carries an id of ours or an amount.
    const labelValues = Object.values(scraped).flatMap((exposition) =>
      exposition.samples.flatMap((sample) => Object.values(sample.labels)),
    );
    const ids = [...paymentIds, refund.body.refund_id as string];
    expect(labelValues.filter((label) => ids.some((id) => label.includes(id)))).toEqual([]);
    expect(
      labelValues.filter((label) => /^(pay|ref|evt|dlv|wh|biz|cust|chk|sess)_[A-Za-z0-9_-]{20,}/.test(label)),
    ).toEqual([]);
    expect(labelValues.filter((label) => ['12345', '123.45', '2345', '23.45'].includes(label))).toEqual([]);
  }, 240_000);

  test('every metric the alerts and the dashboard of infra/observability select is served by a service', async () => {
    const served = new Set(
      Object.values(await scrapeAll()).flatMap((exposition) => [...servedNames(exposition)]),
    );
    const referenced = referencedServiceMetrics();
    expect(referenced.length).toBeGreaterThan(0);
    expect(referenced.filter((name) => !served.has(name))).toEqual([]);
  });
});
