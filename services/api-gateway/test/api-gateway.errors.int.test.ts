import {
  createCheckout,
  createPayment,
  createWebhook,
  deleteWebhook,
  getCheckout,
  listWebhookDeliveries,
  newPublicId,
  type Checkout,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { startHarness, type Harness } from './support/harness';
import { paymentRecord } from './support/payments';

const expectErrorShape = (response: { headers: Record<string, string>; body: unknown }, code: string) => {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
  expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts:\d+|<html/i);
};

describe('api gateway: errors, identity and the other /v1 routes', () => {
  let h: Harness;
  let merchant: { business_id: string; api_key: string };

  beforeAll(async () => {
    // No customer service answers in this file: its commands time out.
    h = await startHarness('gw-err', {
      services: ['payment', 'checkout', 'webhook-dispatcher'],
      config: { RPC_TIMEOUT_MS: 600 },
    });
    merchant = await h.newBusiness('Livraria Central');
  });
  afterAll(async () => h.close());

  test('a request without x-api-key is UNAUTHORIZED (401)', async () => {
    const response = await h.http.get('/v1/payments/pay_abcdefghijklmnopqrstuvwx');
    expect(response.status).toBe(401);
    expectErrorShape(response, 'UNAUTHORIZED');
  });

  test.each([
    ['an unknown key', `sk_test_${'A'.repeat(43)}`],
    ['a key of the other environment', `sk_live_${'B'.repeat(43)}`],
    ['a malformed key', 'not-a-key'],
  ])('%s is UNAUTHORIZED', async (_label, key) => {
    const response = await h.http.get('/v1/payments/pay_abcdefghijklmnopqrstuvwx').set('x-api-key', key);
    expect(response.status).toBe(401);
    expectErrorShape(response, 'UNAUTHORIZED');
  });

  test('a key whose random part is altered after the prefix is UNAUTHORIZED (the hash is checked)', async () => {
    const last = merchant.api_key.at(-1) === 'A' ? 'B' : 'A';
    const forged = `${merchant.api_key.slice(0, -1)}${last}`;
    const response = await h.http.get('/v1/payments/pay_abcdefghijklmnopqrstuvwx').set('x-api-key', forged);
    expect(response.status).toBe(401);
  });

  test('an unknown route is NOT_FOUND in the JSON shape, inside and outside /v1', async () => {
    const inside = await h.http.get('/v1/nothing-here').set('x-api-key', merchant.api_key);
    expect(inside.status).toBe(404);
    expectErrorShape(inside, 'NOT_FOUND');
    const outside = await h.http.get('/wp-admin');
    expect(outside.status).toBe(404);
    expectErrorShape(outside, 'NOT_FOUND');
    expect(outside.headers).not.toHaveProperty('x-powered-by');
  });

  test('malformed JSON is INVALID_JSON (400)', async () => {
    const response = await h.http
      .post('/v1/payments')
      .set('x-api-key', merchant.api_key)
      .set('Content-Type', 'application/json')
      .send('{"payment_method": "pix", amount: }');
    expect(response.status).toBe(400);
    expectErrorShape(response, 'INVALID_JSON');
  });

  test('a body over 64 KiB is PAYLOAD_TOO_LARGE (413)', async () => {
    const response = await h.http
      .post('/v1/payments')
      .set('x-api-key', merchant.api_key)
      .send({ payment_method: 'pix', amount: 1000, metadata: JSON.stringify('x'.repeat(70 * 1024)) });
    expect(response.status).toBe(413);
    expectErrorShape(response, 'PAYLOAD_TOO_LARGE');
  });

  test('a JSON body that is not an object is INVALID_FIELDS', async () => {
    const response = await h.http
      .post('/v1/payments')
      .set('x-api-key', merchant.api_key)
      .set('Content-Type', 'application/json')
      .send('[1,2,3]');
    expect(response.status).toBe(422);
    expectErrorShape(response, 'INVALID_FIELDS');
  });

  test('a downstream service that does not answer in time gives SERVICE_UNAVAILABLE (503)', async () => {
    const response = await h.http
      .post('/v1/customers')
      .set('x-api-key', merchant.api_key)
      .send({ email: 'ana@example.com' });
    expect(response.status).toBe(503);
    expectErrorShape(response, 'SERVICE_UNAVAILABLE');
  });

  test('a refusal with a code outside the public catalog becomes INTERNAL_ERROR (500)', async () => {
    h.fakes.on(createPayment, async () => {
      throw new CommandError('DATABASE_ON_FIRE', 'detalhe interno');
    });
    const response = await h.http
      .post('/v1/payments')
      .set('x-api-key', merchant.api_key)
      .send({ payment_method: 'pix', amount: 1000 });
    expect(response.status).toBe(500);
    expectErrorShape(response, 'INTERNAL_ERROR');
    expect(response.body.error.message).not.toContain('detalhe interno');
  });

  test('a reply that breaks its contract is INTERNAL_ERROR, without internals in the message', async () => {
    // A PIX payment without its PIX details cannot be answered as interface.md says.
    h.fakes.on(createPayment, async (command) => ({
      payment: paymentRecord({ business_id: command.business_id, method: 'pix' }),
    }));
    const response = await h.http
      .post('/v1/payments')
      .set('x-api-key', merchant.api_key)
      .send({ payment_method: 'pix', amount: 1000 });
    expect(response.status).toBe(500);
    expectErrorShape(response, 'INTERNAL_ERROR');
    expect(response.body.error.message).toBe('Erro interno do servidor.');
  });

  test('a checkout is created with the business id and answered with its shareable url', async () => {
    h.fakes.on(createCheckout, async (command): Promise<Checkout> => ({
      checkout_id: newPublicId('chk'),
      business_id: command.business_id,
      product_id: command.product_id,
      slug: 'curso-de-violao-a1b2c3',
      title: command.title,
      return_url: command.return_url,
      cancel_url: command.cancel_url,
      metadata: command.metadata,
      status: 'active',
      created_at: new Date().toISOString(),
    }));
    const response = await h.http.post('/v1/checkouts').set('x-api-key', merchant.api_key).send({
      product_id: 'prod_abcdefghijklmnopqrstuvwx',
      return_url: 'https://loja.example.com/obrigado',
      cancel_url: 'https://loja.example.com/carrinho',
      title: 'Curso de violão',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      checkout_id: expect.stringMatching(/^chk_/),
      business_id: merchant.business_id,
      slug: 'curso-de-violao-a1b2c3',
      status: 'active',
      url: 'https://pay.example.com/c/curso-de-violao-a1b2c3',
    });
  });

  test('a checkout without its urls lists every missing field', async () => {
    const response = await h.http.post('/v1/checkouts').set('x-api-key', merchant.api_key).send({});
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('MISSING_FIELDS');
    for (const field of ['product_id', 'return_url', 'cancel_url'])
      expect(response.body.error.message).toContain(field);
  });

  test('reading a checkout returns its sessions; an unknown one is NOT_FOUND', async () => {
    const checkoutId = newPublicId('chk');
    h.fakes.on(getCheckout, async (query): Promise<Checkout> => {
      if (query.checkout_id !== checkoutId) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
      return {
        checkout_id: checkoutId,
        business_id: query.business_id,
        product_id: 'prod_x',
        slug: 'loja-abc123',
        title: null,
        return_url: 'https://a.example.com',
        cancel_url: 'https://a.example.com',
        metadata: null,
        status: 'active',
        created_at: new Date().toISOString(),
        sessions: [
          {
            session_id: newPublicId('sess'),
            checkout_id: checkoutId,
            payment_id: newPublicId('pay'),
            status: 'initiated' as const,
            created_at: new Date().toISOString(),
          },
        ],
      };
    });
    const found = await h.http.get(`/v1/checkouts/${checkoutId}`).set('x-api-key', merchant.api_key);
    expect(found.status).toBe(200);
    expect(found.body.sessions).toEqual([
      expect.objectContaining({ status: 'initiated', checkout_id: checkoutId }),
    ]);
    const missing = await h.http
      .get(`/v1/checkouts/${newPublicId('chk')}`)
      .set('x-api-key', merchant.api_key);
    expect(missing.status).toBe(404);
    expectErrorShape(missing, 'NOT_FOUND');
  });

  test('a webhook is created and its secret returned; a non-https url is INVALID_FIELDS', async () => {
    h.fakes.on(createWebhook, async (command) => ({
      webhook_id: newPublicId('wh'),
      business_id: command.business_id,
      url: command.url,
      events: command.events,
      status: 'active',
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      secret: 'whsec_abc',
    }));
    const created = await h.http
      .post('/v1/webhook')
      .set('x-api-key', merchant.api_key)
      .send({ url: 'https://hooks.example.com/pay', events: ['payment.confirmed'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ webhook_id: expect.stringMatching(/^wh_/), secret: 'whsec_abc' });
    const insecure = await h.http
      .post('/v1/webhook')
      .set('x-api-key', merchant.api_key)
      .send({ url: 'http://hooks.example.com/pay', events: ['payment.refunded'] });
    expect(insecure.status).toBe(422);
    expect(insecure.body.error.code).toBe('INVALID_FIELDS');
    expect(insecure.body.error.message).toMatch(/url.*events/);
  });

  test("deleting another business's webhook is FORBIDDEN (403); deleting one's own answers deleted", async () => {
    const ownId = newPublicId('wh');
    h.fakes.on(deleteWebhook, async (command) => {
      if (command.webhook_id !== ownId)
        throw new CommandError('FORBIDDEN', 'Este webhook pertence a outra conta.');
      return { deleted: true };
    });
    const forbidden = await h.http
      .delete(`/v1/webhook/${newPublicId('wh')}`)
      .set('x-api-key', merchant.api_key);
    expect(forbidden.status).toBe(403);
    expectErrorShape(forbidden, 'FORBIDDEN');
    const own = await h.http.delete(`/v1/webhook/${ownId}`).set('x-api-key', merchant.api_key);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ deleted: true });
  });

  test('delivery history passes limit and cursor through, and refuses a bad limit', async () => {
    h.fakes.on(listWebhookDeliveries, async () => ({ data: [], next_cursor: null }));
    const page = await h.http
      .get('/v1/webhook/wh_abcdefghijklmnopqrstuvwx/deliveries?limit=5&cursor=abc')
      .set('x-api-key', merchant.api_key);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ data: [], next_cursor: null });
    expect(h.fakes.receivedOf(listWebhookDeliveries).at(-1)).toMatchObject({ limit: 5, cursor: 'abc' });
    const bad = await h.http
      .get('/v1/webhook/wh_abcdefghijklmnopqrstuvwx/deliveries?limit=1000')
      .set('x-api-key', merchant.api_key);
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('INVALID_FIELDS');
  });

  test('healthz answers without a key; readyz reports each check and is 503 while services are missing', async () => {
    const health = await h.http.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await h.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({
      postgres: { ok: true },
      redis: { ok: true },
      rabbitmq: { ok: true },
      'service:payment': { ok: true },
      'service:customer': { ok: false, detail: 'no consumer' },
      'service:pix-adapter': { ok: false },
    });
  });

  test('metrics are exposed in the Prometheus format with the request histogram', async () => {
    const response = await h.http.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.text).toContain('http_request_duration_seconds_bucket');
  });
});
