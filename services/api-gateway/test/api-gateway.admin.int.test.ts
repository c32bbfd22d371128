import {
  createProduct,
  getPayment,
  listAllReceivedFunds,
  setFeeRule,
  type OperatorReceivedFundsItem,
  type Page,
} from '@gateway/contracts';
import { aPaymentRecord, waitFor } from '@gateway/testkit';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness';

describe('api gateway: operator API and API keys', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('gw-admin', { services: ['payment', 'checkout'] });
    h.fakes.on(getPayment, async (query) => ({
      payment: aPaymentRecord({ business_id: query.business_id, payment_id: query.payment_id }),
    }));
  });
  afterAll(async () => h.close());

  const admin = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
    h.http[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const read = (apiKey: string) =>
    h.http.get('/v1/payments/pay_abcdefghijklmnopqrstuvwx').set('x-api-key', apiKey);

  test('the operator API refuses a missing or wrong admin token with UNAUTHORIZED, naming the operator token', async () => {
    const missing = await h.http.post('/admin/v1/businesses').send({ name: 'X' });
    const wrong = await h.http
      .post('/admin/v1/businesses')
      .set('Authorization', 'Bearer wrong-token')
      .send({ name: 'X' });
    const apiKeyInstead = await h.http
      .post('/admin/v1/businesses')
      .set('x-api-key', 'sk_test_not_an_operator')
      .send({ name: 'X' });
    for (const response of [missing, wrong, apiKeyInstead]) {
      expect(response.status).toBe(401);
      expect(response.body.error).toEqual({
        code: 'UNAUTHORIZED',
        message: 'Token de operador ausente ou inválido.',
      });
    }
  });

  test("the operator's received-funds list needs the admin token and checks its filters and page", async () => {
    const missing = await h.http.get('/admin/v1/received-funds?kind=unreadable');
    expect(missing.status).toBe(401);
    for (const query of [
      'kind=lost',
      'status=gone',
      'limit=0',
      'limit=101',
      'starting_after=pay_x',
      'kind=late%00',
      `kind=${'x'.repeat(5000)}`,
      'kind=late&kind=excess',
    ]) {
      const refused = await admin('get', `/admin/v1/received-funds?${query}`);
      expect({ query, status: refused.status, code: refused.body.error?.code }).toEqual({
        query,
        status: 422,
        code: 'INVALID_FIELDS',
      });
    }
    const asked: unknown[] = [];
    h.fakes.on(listAllReceivedFunds, async (query): Promise<Page<OperatorReceivedFundsItem>> => {
      asked.push(query);
      return {
        data: [
          {
            funds_id: 'fund_abcdefghijklmnopqrstuvwxyz',
            kind: 'late',
            rail: 'crypto',
            reference: 'sig',
            instruction: '1.0',
            amount_centavos: null,
            amount_base_units: '2500001',
            decimals: 6,
            detected_at: '2026-01-01T00:00:00.000Z',
            status: 'held',
            returned_by: null,
            returned_at: null,
            payment_id: 'pay_abcdefghijklmnopqrstuvwx',
            business_id: 'biz_abcdefghijklmnopqrstuvwx',
          },
        ],
        has_more: true,
      };
    });
    const listed = await admin('get', '/admin/v1/received-funds?kind=late&status=held&limit=5');
    expect(asked).toEqual([{ kind: 'late', status: 'held', limit: 5, starting_after: null }]);
    expect({ status: listed.status, body: listed.body }).toEqual({
      status: 200,
      body: {
        data: [
          {
            funds_id: 'fund_abcdefghijklmnopqrstuvwxyz',
            kind: 'late',
            rail: 'crypto',
            reference: 'sig',
            instruction: '1.0',
            amount_brl: null,
            amount_token: 2.500001,
            amount_base_units: '2500001',
            detected_at: '2026-01-01T00:00:00.000Z',
            status: 'held',
            returned_by: null,
            returned_at: null,
            payment_id: 'pay_abcdefghijklmnopqrstuvwx',
            business_id: 'biz_abcdefghijklmnopqrstuvwx',
            assigned_payment_id: null,
            assigned_at: null,
            return_reference: null,
            return_failure_reason: null,
            value_brl: null,
            arrival_quote: null,
          },
        ],
        has_more: true,
      },
    });
  });

  test('a new business gets a sandbox key that works at once, and only its hash is stored', async () => {
    const created = await admin('post', '/admin/v1/businesses').send({ name: 'Café Aroma' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      business_id: expect.stringMatching(/^biz_[A-Za-z0-9_-]{24,}$/),
      api_key: expect.stringMatching(/^sk_test_[A-Za-z0-9_-]{43}$/),
      environment: 'sandbox',
    });
    expect((await read(created.body.api_key)).status).toBe(200);
    const rows = await h.gateway.runtime.dataSource.query('SELECT * FROM api_keys WHERE business_id = $1', [
      created.body.business_id,
    ]);
    expect(JSON.stringify(rows)).not.toContain(created.body.api_key.slice(8));
    const shown = await admin('get', `/admin/v1/businesses/${created.body.business_id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      name: 'Café Aroma',
      api_keys: [{ key_prefix: created.body.key_prefix }],
    });
  });

  test('a business without a name lists the missing field', async () => {
    const response = await admin('post', '/admin/v1/businesses').send({});
    expect(response.status).toBe(422);
    expect(response.body.error).toEqual({ code: 'MISSING_FIELDS', message: expect.stringContaining('name') });
  });

  test('a rotated key works alongside the old one; a revoked key stops working within 5 seconds', async () => {
    const business = await admin('post', '/admin/v1/businesses').send({ name: 'Rotação' });
    const oldKey = business.body.api_key as string;
    const rotated = await admin('post', `/admin/v1/businesses/${business.body.business_id}/api-keys`);
    expect(rotated.status).toBe(201);
    expect(rotated.body.key_prefix).toEqual(expect.any(String));
    expect((await read(oldKey)).status).toBe(200);
    expect((await read(rotated.body.api_key)).status).toBe(200);

    const revoked = await admin('delete', `/admin/v1/api-keys/${business.body.key_prefix}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    const startedAt = Date.now();
    await waitFor(async () => (await read(oldKey)).status === 401, {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the revoked key to be refused',
    });
    expect(Date.now() - startedAt).toBeLessThanOrEqual(5000);
    expect((await read(rotated.body.api_key)).status).toBe(200);
  });

  test("a business's read lists its newest 100 keys, newest first, and says there are older ones", async () => {
    const created = await admin('post', '/admin/v1/businesses').send({ name: 'Chaveiro Rápido' });
    const issued: string[] = [created.body.key_prefix];
    for (let n = 0; n < 100; n += 1) {
      const rotated = await admin('post', `/admin/v1/businesses/${created.body.business_id}/api-keys`);
      issued.push(rotated.body.key_prefix);
    }
    const shown = await admin('get', `/admin/v1/businesses/${created.body.business_id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.api_keys_has_more).toBe(true);
    expect(shown.body.api_keys.map((key: { key_prefix: string }) => key.key_prefix)).toEqual(
      issued.slice(1).reverse(),
    );
    const fewer = await admin('post', '/admin/v1/businesses').send({ name: 'Uma Chave' });
    const single = await admin('get', `/admin/v1/businesses/${fewer.body.business_id}`);
    expect(single.body).toMatchObject({
      api_keys: [{ key_prefix: fewer.body.key_prefix }],
      api_keys_has_more: false,
    });
  });

  test('the businesses are listed newest first, a page at a time, with the admin token only', async () => {
    await admin('post', '/admin/v1/businesses').send({ name: 'Lista Anterior' });
    const first = await admin('post', '/admin/v1/businesses').send({ name: 'Lista Primeira' });
    const second = await admin('post', '/admin/v1/businesses').send({ name: 'Lista Segunda' });
    const page = await admin('get', '/admin/v1/businesses?limit=2');
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      data: [
        {
          business_id: second.body.business_id,
          name: 'Lista Segunda',
          environment: 'sandbox',
          created_at: expect.any(String),
        },
        expect.objectContaining({ business_id: first.body.business_id, name: 'Lista Primeira' }),
      ],
      has_more: true,
    });
    const next = await admin('get', `/admin/v1/businesses?limit=1&starting_after=${second.body.business_id}`);
    expect(next.body.data.map((b: { business_id: string }) => b.business_id)).toEqual([
      first.body.business_id,
    ]);
    const bad = await admin('get', '/admin/v1/businesses?limit=0&starting_after=pay_x');
    expect(bad.status).toBe(422);
    expect((await h.http.get('/admin/v1/businesses')).status).toBe(401);
    expect((await read(first.body.api_key)).status).toBe(200);
    expect((await h.http.get('/admin/v1/businesses').set('x-api-key', first.body.api_key)).status).toBe(401);
  });

  test('revoking an unknown key prefix is NOT_FOUND', async () => {
    const response = await admin('delete', '/admin/v1/api-keys/doesnotexist');
    expect(response.status).toBe(404);
  });

  test('a fee rule is set through the payment service', async () => {
    h.fakes.on(setFeeRule, async (rule) => rule);
    const { body: business } = await admin('post', '/admin/v1/businesses').send({ name: 'Taxas' });
    const response = await admin('put', `/admin/v1/businesses/${business.business_id}/fee-rules/pix`).send({
      percent_bps: 199,
      fixed_centavos: 50,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      business_id: business.business_id,
      method: 'pix',
      percent_bps: 199,
      fixed_centavos: 50,
    });
    const unsupported = await admin(
      'put',
      `/admin/v1/businesses/${business.business_id}/fee-rules/card`,
    ).send({
      percent_bps: 1,
      fixed_centavos: 0,
    });
    expect(unsupported.body.error.code).toBe('UNSUPPORTED_PAYMENT_METHOD');
    const unknown = await admin('put', '/admin/v1/businesses/biz_unknownunknownunknown00/fee-rules/pix').send(
      {
        percent_bps: 1,
        fixed_centavos: 0,
      },
    );
    expect(unknown.status).toBe(404);
  });

  test('a product is created with its price in centavos and shown in BRL', async () => {
    h.fakes.on(createProduct, async (command) => ({
      product_id: 'prod_abcdefghijklmnopqrstuvwx',
      business_id: command.business_id,
      name: command.name,
      description: command.description,
      price_centavos: command.price_centavos,
      status: 'active',
      created_at: new Date().toISOString(),
    }));
    const { body: business } = await admin('post', '/admin/v1/businesses').send({ name: 'Produtos' });
    const response = await admin('post', `/admin/v1/businesses/${business.business_id}/products`).send({
      name: 'Curso de violão',
      price: 19990,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      product_id: 'prod_abcdefghijklmnopqrstuvwx',
      name: 'Curso de violão',
      price: 199.9,
      price_centavos: 19990,
      description: null,
    });
    const cheap = await admin('post', `/admin/v1/businesses/${business.business_id}/products`).send({
      name: 'Bala',
      price: 5,
    });
    expect(cheap.body.error.code).toBe('INVALID_AMOUNT');
  });
});
