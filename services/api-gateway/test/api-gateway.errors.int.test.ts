import {
  createCheckout,
  createPayment,
  createWebhook,
  deleteWebhook,
  getCheckout,
  listWebhookDeliveries,
  newPublicId,
  type Checkout,
  type ErrorCode,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aPaymentRecord } from '@gateway/testkit';
import { aCheckout, aCheckoutCreatedFor, aCheckoutSession, aWebhookCreatedFor } from './support/builders';
import { harnessWithMerchantForTheseTests } from './support/harness';

const expectErrorShape = (response: { headers: Record<string, string>; body: unknown }, code: string) => {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
  expect(JSON.stringify(response.body)).not.toMatch(/at .*\.ts:\d+|<html/i);
};

describe('api gateway: errors, identity and the other /v1 routes', () => {
  const h = harnessWithMerchantForTheseTests('gw-err', {
    merchant: 'Livraria Central',
    // No customer service answers in this file: its commands time out.
    services: ['payment', 'checkout', 'webhook-dispatcher'],
    config: { RPC_TIMEOUT_MS: 600 },
  });

  /** A request to the /v1 API with the merchant's key. */
  const asMerchant = (method: 'get' | 'post' | 'delete', path: string) =>
    h.http[method](path).set('x-api-key', h.merchant.api_key);

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
    const last = h.merchant.api_key.at(-1) === 'A' ? 'B' : 'A';
    const forged = `${h.merchant.api_key.slice(0, -1)}${last}`;
    const response = await h.http.get('/v1/payments/pay_abcdefghijklmnopqrstuvwx').set('x-api-key', forged);
    expect(response.status).toBe(401);
  });

  test('an unknown route is NOT_FOUND in the JSON shape, inside and outside /v1', async () => {
    const inside = await asMerchant('get', '/v1/nothing-here');
    expect(inside.status).toBe(404);
    expectErrorShape(inside, 'NOT_FOUND');
    const outside = await h.http.get('/wp-admin');
    expect(outside.status).toBe(404);
    expectErrorShape(outside, 'NOT_FOUND');
    expect(outside.headers).not.toHaveProperty('x-powered-by');
  });

  // A string body is sent as it is (not valid JSON on purpose); an object is serialised.
  test.each([
    [
      'malformed JSON is INVALID_JSON (400)',
      '/v1/payments',
      '{"payment_method": "pix", amount: }',
      400,
      'INVALID_JSON',
    ],
    [
      'a body over 64 KiB is PAYLOAD_TOO_LARGE (413)',
      '/v1/payments',
      { payment_method: 'pix', amount: 1000, metadata: JSON.stringify('x'.repeat(70 * 1024)) },
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['a JSON body that is not an object is INVALID_FIELDS', '/v1/payments', '[1,2,3]', 422, 'INVALID_FIELDS'],
    [
      'a downstream service that does not answer in time gives SERVICE_UNAVAILABLE (503)',
      '/v1/customers',
      { email: 'ana@example.com' },
      503,
      'SERVICE_UNAVAILABLE',
    ],
  ])('%s', async (_behaviour, path, body, status, code) => {
    const response = await asMerchant('post', path).set('Content-Type', 'application/json').send(body);
    expect(response.status).toBe(status);
    expectErrorShape(response, code);
  });

  test('a refusal with a code outside the public catalog becomes INTERNAL_ERROR (500)', async () => {
    h.fakes.on(createPayment, async () => {
      // What a service of another version might answer: the type system cannot stop it on the wire.
      throw new CommandError('DATABASE_ON_FIRE' as ErrorCode, 'detalhe interno');
    });
    const response = await asMerchant('post', '/v1/payments').send({ payment_method: 'pix', amount: 1000 });
    expect(response.status).toBe(500);
    expectErrorShape(response, 'INTERNAL_ERROR');
    expect(response.body.error.message).not.toContain('detalhe interno');
  });

  test("a public code the command does not declare becomes INTERNAL_ERROR (500), never the merchant's to act on", async () => {
    h.fakes.on(createPayment, async () => {
      throw new CommandError('INVALID_STATUS', 'detalhe interno');
    });
    const response = await asMerchant('post', '/v1/payments').send({ payment_method: 'pix', amount: 1000 });
    expect(response.status).toBe(500);
    expectErrorShape(response, 'INTERNAL_ERROR');
    expect(response.body.error.message).not.toContain('detalhe interno');
  });

  test('a reply that breaks its contract is INTERNAL_ERROR, without internals in the message', async () => {
    // A PIX payment without its PIX details cannot be answered as docs/api.md says.
    h.fakes.on(createPayment, async (command) => ({
      payment: aPaymentRecord({ business_id: command.business_id, method: 'pix' }),
    }));
    const response = await asMerchant('post', '/v1/payments').send({ payment_method: 'pix', amount: 1000 });
    expect(response.status).toBe(500);
    expectErrorShape(response, 'INTERNAL_ERROR');
    expect(response.body.error.message).toBe('Erro interno do servidor.');
  });

  test('a checkout is created with the business id and answered with its shareable url', async () => {
    h.fakes.on(createCheckout, async (command) =>
      aCheckoutCreatedFor(command, { slug: 'curso-de-violao-a1b2c3' }),
    );
    const response = await asMerchant('post', '/v1/checkouts').send({
      product_id: 'prod_abcdefghijklmnopqrstuvwx',
      return_url: 'https://loja.example.com/obrigado',
      cancel_url: 'https://loja.example.com/carrinho',
      title: 'Curso de violão',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      checkout_id: expect.stringMatching(/^chk_/),
      business_id: h.merchant.business_id,
      slug: 'curso-de-violao-a1b2c3',
      status: 'active',
      url: 'https://pay.example.com/c/curso-de-violao-a1b2c3',
    });
  });

  test('a checkout without its urls lists every missing field', async () => {
    const response = await asMerchant('post', '/v1/checkouts').send({});
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('MISSING_FIELDS');
    for (const field of ['product_id', 'return_url', 'cancel_url'])
      expect(response.body.error.message).toContain(field);
  });

  test('reading a checkout returns its sessions; an unknown one is NOT_FOUND', async () => {
    const checkoutId = newPublicId('chk');
    h.fakes.on(getCheckout, async (query): Promise<Checkout> => {
      if (query.checkout_id !== checkoutId) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
      return aCheckout({
        checkout_id: checkoutId,
        business_id: query.business_id,
        product_id: 'prod_x',
        sessions: [aCheckoutSession(checkoutId)],
      });
    });
    const found = await asMerchant('get', `/v1/checkouts/${checkoutId}`);
    expect(found.status).toBe(200);
    expect(found.body.sessions).toEqual([
      expect.objectContaining({ status: 'initiated', checkout_id: checkoutId }),
    ]);
    const missing = await asMerchant('get', `/v1/checkouts/${newPublicId('chk')}`);
    expect(missing.status).toBe(404);
    expectErrorShape(missing, 'NOT_FOUND');
  });

  test('a webhook is created and its secret returned; a non-https url is INVALID_FIELDS', async () => {
    h.fakes.on(createWebhook, async (command) => aWebhookCreatedFor(command, 'whsec_abc'));
    const created = await asMerchant('post', '/v1/webhook').send({
      url: 'https://hooks.example.com/pay',
      events: ['payment.confirmed'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ webhook_id: expect.stringMatching(/^wh_/), secret: 'whsec_abc' });
    const insecure = await asMerchant('post', '/v1/webhook').send({
      url: 'http://hooks.example.com/pay',
      events: ['payment.refunded'],
    });
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
    const forbidden = await asMerchant('delete', `/v1/webhook/${newPublicId('wh')}`);
    expect(forbidden.status).toBe(403);
    expectErrorShape(forbidden, 'FORBIDDEN');
    const own = await asMerchant('delete', `/v1/webhook/${ownId}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ deleted: true });
  });

  test('delivery history passes limit and cursor through, and refuses a bad limit', async () => {
    h.fakes.on(listWebhookDeliveries, async () => ({ data: [], next_cursor: null }));
    const page = await asMerchant(
      'get',
      '/v1/webhook/wh_abcdefghijklmnopqrstuvwx/deliveries?limit=5&cursor=abc',
    );
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ data: [], next_cursor: null });
    expect(h.fakes.receivedOf(listWebhookDeliveries).at(-1)).toMatchObject({ limit: 5, cursor: 'abc' });
    const bad = await asMerchant('get', '/v1/webhook/wh_abcdefghijklmnopqrstuvwx/deliveries?limit=1000');
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
