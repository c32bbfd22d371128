import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { getPayment, newPublicId } from '@gateway/contracts';
import { aPaymentRecord, testLogger } from '@gateway/testkit';
import { createApp } from '../src/http/app';
import { createRedisClient } from '../src/clients/redis';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness';
import { EventFeedHealth } from '../src/domain/event-feed-health';
import { ChangeFeedWatermark } from '../src/domain/change-feed-watermark';

async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('api gateway: rate limit', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('gw-rl', {
      services: ['payment'],
      config: { RATE_LIMIT_PER_MINUTE: 60, DASHBOARD_RATE_LIMIT_PER_MINUTE: 150 },
    });
    h.fakes.on(getPayment, async (query) => ({
      payment: aPaymentRecord({ business_id: query.business_id, payment_id: query.payment_id }),
    }));
  });
  afterAll(async () => h.close());

  const read = (apiKey: string) =>
    h.http.get('/v1/payments/pay_abcdefghijklmnopqrstuvwx').set('x-api-key', apiKey);

  /** `api_gateway_rate_limited_requests_total` of one limit, as the gateway's /metrics serves it. */
  const rateLimited = async (limit: string): Promise<number> => {
    const { text } = await h.http.get('/metrics');
    const line = text.split('\n').find((candidate) =>
      // Its labels: the limit, then the service's own (`service`), which every series carries.
      candidate.startsWith(`api_gateway_rate_limited_requests_total{limit="${limit}",`),
    );
    return line ? Number(line.split(' ')[1]) : 0;
  };

  test('every /v1 answer carries the RateLimit headers, counting down per key', async () => {
    const { api_key } = await h.newBusiness();
    const first = await read(api_key);
    const second = await read(api_key);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('60');
    expect(first.headers['ratelimit-remaining']).toBe('59');
    expect(second.headers['ratelimit-remaining']).toBe('58');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
  });

  test('a burst of 200 parallel requests lets exactly 60 through; the rest are RATE_LIMITED with Retry-After, and counted', async () => {
    const { api_key } = await h.newBusiness();
    const rejectedBefore = await rateLimited('api');
    const responses = await Promise.all(Array.from({ length: 200 }, () => read(api_key)));
    const limited = responses.filter((response) => response.status === 429);
    expect(responses.filter((response) => response.status !== 429)).toHaveLength(60);
    expect(limited).toHaveLength(140);
    expect(await rateLimited('api')).toBe(rejectedBefore + 140);
    const sample = limited[0]!;
    expect(sample.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(sample.headers['ratelimit-remaining']).toBe('0');
    expect(Number(sample.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(sample.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  test('the limit is per key: another business is not affected by a full bucket', async () => {
    const busy = await h.newBusiness();
    await Promise.all(Array.from({ length: 61 }, () => read(busy.api_key)));
    expect((await read(busy.api_key)).status).toBe(429);
    const calm = await h.newBusiness();
    expect((await read(calm.api_key)).status).toBe(200);
  });

  const admin = (method: 'post' | 'put', path: string) =>
    h.http[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  /** A business created as the dashboard creates it (its first key the dashboard's), and an ordinary key of it. */
  const dashboardBusiness = async () => {
    const created = await admin('post', '/admin/v1/businesses').send({
      name: 'Loja Painel',
      key_purpose: 'dashboard',
    });
    expect(created.status).toBe(201);
    expect(created.body.key_purpose).toBe('dashboard');
    const ordinary = await admin('post', `/admin/v1/businesses/${created.body.business_id}/api-keys`).send(
      {},
    );
    expect(ordinary.status).toBe(201);
    return {
      businessId: created.body.business_id as string,
      dashboardKey: created.body.api_key as string,
      dashboardPrefix: created.body.key_prefix as string,
      ordinaryKey: ordinary.body.api_key as string,
      ordinaryPrefix: ordinary.body.key_prefix as string,
    };
  };

  test("an ordinary key is limited at its limit while the dashboard's key of the same business still answers", async () => {
    const business = await dashboardBusiness();
    const rejectedBefore = await rateLimited('api');
    const burst = await Promise.all(Array.from({ length: 70 }, () => read(business.ordinaryKey)));
    expect(burst.filter((response) => response.status === 200)).toHaveLength(60);
    expect(burst.filter((response) => response.status === 429)).toHaveLength(10);
    expect(await rateLimited('api')).toBe(rejectedBefore + 10);

    const dashboard = await read(business.dashboardKey);
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers['ratelimit-limit']).toBe('150');
    expect(dashboard.headers['ratelimit-remaining']).toBe('149');
    // Its own budget is a limit too, counted apart.
    const dashboardRejectedBefore = await rateLimited('dashboard');
    const dashboardBurst = await Promise.all(Array.from({ length: 160 }, () => read(business.dashboardKey)));
    expect(dashboardBurst.filter((response) => response.status === 200)).toHaveLength(149);
    expect(dashboardBurst.filter((response) => response.status === 429)).toHaveLength(11);
    expect(await rateLimited('dashboard')).toBe(dashboardRejectedBefore + 11);
    expect((await read(business.ordinaryKey)).status).toBe(429);
  });

  test("a merchant cannot get the dashboard's budget for an ordinary key through the public API", async () => {
    const business = await dashboardBusiness();
    // No /v1 route changes a key: with the key itself, or any other of the business, the attempt is NOT_FOUND.
    for (const key of [business.ordinaryKey, business.dashboardKey]) {
      const attempt = await h.http
        .put(`/v1/api-keys/${business.ordinaryPrefix}/purpose`)
        .set('x-api-key', key)
        .send({ purpose: 'dashboard' });
      expect(attempt.status).toBe(404);
    }
    // The operator API's change is the operator's: a merchant's key is no operator token.
    const asMerchant = await h.http
      .put(`/admin/v1/api-keys/${business.ordinaryPrefix}/purpose`)
      .set('Authorization', `Bearer ${business.ordinaryKey}`)
      .send({ purpose: 'dashboard' });
    expect(asMerchant.status).toBe(401);
    // Nothing a request carries names a budget: the ordinary key is counted as ordinary whatever it says.
    const claimed = await read(business.ordinaryKey)
      .set('x-dashboard', 'true')
      .set('user-agent', 'gateway-dashboard')
      .query({ purpose: 'dashboard' });
    expect(claimed.status).toBe(200);
    expect(claimed.headers['ratelimit-limit']).toBe('60');
    // A key the merchant was issued, rolled, stays ordinary.
    const rolled = await admin('post', `/admin/v1/api-keys/${business.ordinaryPrefix}/roll`).send({});
    expect(rolled.status).toBe(201);
    expect((await read(rolled.body.api_key)).headers['ratelimit-limit']).toBe('60');
    const listed = await h.http
      .get(`/admin/v1/businesses/${business.businessId}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(
      Object.fromEntries(
        (listed.body.api_keys as Array<{ key_prefix: string; purpose: string }>).map((key) => [
          key.key_prefix,
          key.purpose,
        ]),
      ),
    ).toEqual({
      [business.dashboardPrefix]: 'dashboard',
      [business.ordinaryPrefix]: 'merchant',
      [rolled.body.key_prefix]: 'merchant',
    });
  });

  test("a key given before keys had a purpose gets the dashboard's budget once the operator marks it, and keeps it when rolled", async () => {
    const { api_key, key_prefix, key_purpose } = await h.newBusiness();
    expect(key_purpose).toBe('merchant');
    expect((await read(api_key)).headers['ratelimit-limit']).toBe('60');
    const marked = await admin('put', `/admin/v1/api-keys/${key_prefix}/purpose`).send({
      purpose: 'dashboard',
    });
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ key_prefix, purpose: 'dashboard' });
    // The cached lookup was dropped: the next request is counted against the dashboard's budget.
    expect((await read(api_key)).headers['ratelimit-limit']).toBe('150');
    const rolled = await admin('post', `/admin/v1/api-keys/${key_prefix}/roll`).send({});
    expect((await read(rolled.body.api_key)).headers['ratelimit-limit']).toBe('150');
    const unknown = await admin('put', '/admin/v1/api-keys/AAAAAAAAAAAA/purpose').send({
      purpose: 'dashboard',
    });
    expect(unknown.status).toBe(404);
  });

  test('health and metrics are outside the limit', async () => {
    const responses = await Promise.all(Array.from({ length: 80 }, () => h.http.get('/healthz')));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(responses[0]!.headers).not.toHaveProperty('ratelimit-limit');
  });

  test('the operator API is limited per IP before the token is checked, wrong tokens included', async () => {
    const limited = await startHarness('gw-rl-admin', {
      services: [],
      config: { ADMIN_RATE_LIMIT_PER_MINUTE: 5 },
    });
    try {
      const guesses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          limited.http
            .get(`/admin/v1/businesses/${newPublicId('biz')}`)
            .set('Authorization', `Bearer guess-${i}`),
        ),
      );
      expect(guesses.filter((response) => response.status === 401)).toHaveLength(5);
      const refused = guesses.filter((response) => response.status === 429);
      expect(refused).toHaveLength(3);
      expect(refused[0]!.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
      expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
      const withToken = await limited.http
        .get(`/admin/v1/businesses/${newPublicId('biz')}`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(withToken.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  test('with Redis unreachable the API fails closed with SERVICE_UNAVAILABLE, quickly', async () => {
    const { api_key } = await h.newBusiness();
    const logger = testLogger('gw-no-redis');
    const deadRedis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, logger);
    const app = createApp({
      config: h.config,
      dataSource: h.gateway.runtime.dataSource,
      broker: h.gateway.runtime.broker,
      redis: deadRedis,
      logger,
      paymentCopies: {
        dataSource: h.gateway.runtime.dataSource,
        maxAgeMs: h.config.PAYMENT_COPY_MAX_AGE_MS,
        feed: new EventFeedHealth(1000, h.config.PAYMENT_COPY_MAX_AGE_MS),
        changeFeed: new ChangeFeedWatermark(),
        logger,
      },
    });
    const server = app.listen(0);
    try {
      const started = Date.now();
      const response = await request(server)
        .get('/v1/payments/pay_abcdefghijklmnopqrstuvwx')
        .set('x-api-key', api_key);
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(2000);
      const ready = await request(server).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis.ok).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      deadRedis.disconnect();
    }
  });
});
