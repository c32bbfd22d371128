import fc from 'fast-check';
import {
  createCheckout,
  createCustomer,
  createPayment,
  createWebhook,
  newPublicId,
  retryWebhookDelivery,
  sendTestWebhook,
  simulatePayment,
  updatePayment,
} from '@gateway/contracts';
import { errorCatalog } from '@gateway/http-errors';
import { aCryptoPaymentView, aPixPaymentView } from '@gateway/testkit';
import { startHarness, type Harness } from './support/harness';

/**
 * Every /v1 route that takes a body, with the field names it knows (so generated bodies reach deep validation), and
 * bodies that once broke it, tried on every run before the random ones.
 */
const ROUTES: Array<{ method: 'post' | 'patch'; path: string; fields: string[]; examples?: unknown[] }> = [
  {
    method: 'post',
    path: '/v1/payments',
    fields: ['payment_method', 'amount', 'currency', 'metadata', 'crypto'],
    // A PIX payment ignores `crypto`, whatever it holds: the handler once read its `currency` regardless (a 500).
    examples: [
      { payment_method: 'pix', amount: 100, crypto: -5e-324 },
      { payment_method: 'pix', amount: 100, crypto: 'usdc' },
      { payment_method: 'pix', amount: 100, crypto: { network: 'solana' } },
    ],
  },
  { method: 'patch', path: '/v1/payments/pay_abcdefghijklmnopqrstuvwx', fields: ['amount', 'metadata'] },
  {
    method: 'post',
    path: '/v1/sandbox/payments/pay_abcdefghijklmnopqrstuvwx/simulate',
    fields: ['outcome', 'amount'],
  },
  {
    method: 'post',
    path: '/v1/checkouts',
    fields: ['product_id', 'return_url', 'cancel_url', 'title', 'slug', 'metadata'],
  },
  { method: 'post', path: '/v1/customers', fields: ['email', 'phone_number', 'document_number', 'metadata'] },
  { method: 'post', path: '/v1/webhook', fields: ['url', 'events'] },
  { method: 'post', path: '/v1/webhook/wh_abcdefghijklmnopqrstuvwx/deliveries/dlv_1/retry', fields: [] },
  { method: 'post', path: '/v1/webhook/wh_abcdefghijklmnopqrstuvwx/test', fields: [] },
];

/** Values that are sometimes right for some field, so both refusals and successes are explored. */
const plausibleValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    'pix',
    'crypto',
    'card',
    'brl',
    'BRL',
    'paid',
    '{"a":1}',
    'https://hooks.example.com/x',
    'http://x',
    'prod_abc',
    ['payment.confirmed'],
    ['nope'],
    { currency: 'usdc', network: 'solana' },
    { currency: 'btc', network: 'solana' },
  ),
  fc.integer({ min: -1000, max: 10_000_000 }),
  fc.double(),
);

const bodyFor = (fields: string[]) =>
  fc.oneof(
    fc.jsonValue(),
    fc.object(),
    fields.length > 0
      ? fc.record(Object.fromEntries(fields.map((field) => [field, plausibleValue])), { requiredKeys: [] })
      : fc.object(),
  );

describe('api gateway: arbitrary JSON bodies', () => {
  let h: Harness;
  let apiKey: string;

  beforeAll(async () => {
    h = await startHarness('gw-fuzz');
    apiKey = (await h.newBusiness()).api_key;
    const now = () => new Date().toISOString();
    h.fakes.on(createPayment, async (command) =>
      command.method === 'pix'
        ? aPixPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos })
        : aCryptoPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos }),
    );
    h.fakes.on(updatePayment, async (command) =>
      aPixPaymentView({ business_id: command.business_id, payment_id: command.payment_id }),
    );
    h.fakes.on(simulatePayment, async () => ({ accepted: true }));
    h.fakes.on(createCheckout, async (command) => ({
      checkout_id: newPublicId('chk'),
      ...command,
      slug: command.slug ?? 'gerado-abc123',
      status: 'active',
      created_at: now(),
    }));
    h.fakes.on(createCustomer, async (command) => ({
      customer_id: newPublicId('cust'),
      ...command,
      created_at: now(),
    }));
    h.fakes.on(createWebhook, async (command) => ({
      webhook_id: newPublicId('wh'),
      ...command,
      status: 'active',
      created_at: now(),
      updated_at: now(),
      secret: 'whsec_x',
    }));
    h.fakes.on(retryWebhookDelivery, async (command) => ({
      delivery_id: command.delivery_id,
      status: 'pending',
    }));
    h.fakes.on(sendTestWebhook, async () => ({
      event_id: newPublicId('evt'),
      status_code: 200,
      error: null,
    }));
  });
  afterAll(async () => h.close());

  test.each(ROUTES)(
    '$method $path answers any JSON body with a success or a public 4xx error, never a 5xx, never hanging',
    async ({ method, path, fields, examples = [] }) => {
      await fc.assert(
        fc.asyncProperty(bodyFor(fields), async (body) => {
          const response = await h.http[method](path)
            .set('x-api-key', apiKey)
            .set('Content-Type', 'application/json')
            .timeout(5000)
            .send(JSON.stringify(body));
          expect(response.status).toBeLessThan(500);
          expect(response.headers['content-type']).toMatch(/^application\/json/);
          if (response.status >= 400) {
            expect(response.body).toEqual({
              error: { code: expect.any(String), message: expect.any(String) },
            });
            expect(Object.keys(errorCatalog)).toContain(response.body.error.code);
          } else {
            expect(response.body).not.toHaveProperty('error.code');
          }
        }),
        { numRuns: 100, examples: examples.map((body) => [body] as [unknown]) },
      );
    },
  );
});
