import { randomUUID } from 'node:crypto';
import {
  expectError,
  hostileBodyTests,
  hostileQueryTests,
  otherBusinessTests,
  pathIdTests,
  unservedMethodTests,
  type HostileStack,
} from '../support/hostile-input';

/** Hostile input on the webhook and event routes. */
export function webhookRoutes(h: HostileStack): void {
  const { a, hit, asA } = h;

  describe('path ids that cannot exist are NOT_FOUND at once, on every route', () => {
    pathIdTests(h, [
      ['GET', (id) => `/v1/webhook/${id}`, undefined],
      ['DELETE', (id) => `/v1/webhook/${id}`, undefined],
      ['GET', (id) => `/v1/webhook/${id}/deliveries`, undefined],
      ['POST', (id) => `/v1/webhook/${id}/test`, undefined],
      ['POST', (id) => `/v1/webhook/${id}/rotate-secret`, undefined],
      ['POST', (id) => `/v1/webhook/wh_abcdefghijklmnopqrstuvwx/deliveries/${id}/retry`, undefined],
      ['GET', (id) => `/v1/events/${id}`, undefined],
    ]);
  });

  describe('hostile bodies are clean 4xx on every route that takes a body', () => {
    hostileBodyTests(h, [
      [
        'POST',
        '/v1/webhook (Idempotency-Key)',
        () => '/v1/webhook',
        () => asA({ 'idempotency-key': randomUUID() }),
      ],
    ]);
  });

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, [
      ['/v1/webhook', () => '/v1/webhook', ['POST'], () => asA()],
      ['/v1/webhook/{id}', () => `/v1/webhook/${a.webhookId}`, ['DELETE'], () => asA()],
      ['/v1/webhook/{id}/deliveries', () => `/v1/webhook/${a.webhookId}/deliveries`, ['GET'], () => asA()],
      ['/v1/webhook/{id}/test', () => `/v1/webhook/${a.webhookId}/test`, ['POST'], () => asA()],
      ['/v1/events', () => '/v1/events', ['GET'], () => asA()],
      ['/v1/events/{id}', () => '/v1/events/evt_abcdefghijklmnopqrstuvwx', ['GET'], () => asA()],
    ]);
  });

  describe("another business's resources: NOT_FOUND on reads, FORBIDDEN on DELETE webhook", () => {
    const asB = () => ({ 'x-api-key': h.b.apiKey });

    otherBusinessTests(
      h,
      [
        ['GET', "its webhook's deliveries", () => `/v1/webhook/${a.webhookId}/deliveries`, undefined],
        ['GET', 'its webhook', () => `/v1/webhook/${a.webhookId}`, undefined],
        [
          'POST',
          'a rotation of its webhook secret',
          () => `/v1/webhook/${a.webhookId}/rotate-secret`,
          undefined,
        ],
      ],
      [['webhook', 'webhook_id', () => [a.webhookId]]],
    );

    test('DELETE of the webhook is FORBIDDEN, and test/retry of it are refused', async () => {
      expectError(await hit('DELETE', `/v1/webhook/${a.webhookId}`, { headers: asB() }), 'FORBIDDEN');
      expectError(
        await hit('POST', `/v1/webhook/${a.webhookId}/test`, { headers: asB() }),
        'FORBIDDEN',
        'NOT_FOUND',
      );
      expectError(
        await hit('POST', `/v1/webhook/${a.webhookId}/deliveries/dlv_abcdefghijklmnopqrstuvwx/retry`, {
          headers: asB(),
        }),
        'FORBIDDEN',
        'NOT_FOUND',
      );
      // The owner's webhook and payment are untouched.
      expect((await hit('GET', `/v1/webhook/${a.webhookId}/deliveries`, { headers: asA() })).status).toBe(
        200,
      );
      const payment = await hit('GET', `/v1/payments/${a.pixId}`, { headers: asA() });
      expect({
        status: payment.status,
        paymentStatus: payment.json?.status,
        amount: payment.json?.amount_brl,
      }).toEqual({
        status: 200,
        paymentStatus: 'processing',
        amount: 10,
      });
    });

    test('nothing was parked', h.nothingParked);
  });

  describe('hostile headers, credentials and query strings', () => {
    hostileQueryTests(h, [
      ['a nested limit', () => `/v1/webhook/${a.webhookId}/deliveries?limit[a][b][c][d][e][f]=1`],
    ]);
  });
}
