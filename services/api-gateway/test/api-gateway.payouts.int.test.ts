import {
  createPayout,
  getPayout,
  listPayouts,
  newPublicId,
  setPayoutAccount,
  type PayoutRecord,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { OpenApiDocument } from '../src/http/openapi';
import { OpenApiResponseValidator } from './support/openapi';
import { ADMIN_TOKEN, harnessWithMerchantForTheseTests, type Business } from './support/harness';

/** A payout as the ledger answers it. */
function aPayoutRecord(businessId: string, overrides: Partial<PayoutRecord> = {}): PayoutRecord {
  const now = new Date().toISOString();
  return {
    payout_id: newPublicId('po'),
    business_id: businessId,
    amount_centavos: 12_345,
    status: 'pending',
    destination: { pix_key_masked: '**.345.678/0001-**' },
    external_id: null,
    failure_reason: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

/** The public view the routes answer of a record. */
const publicView = (record: PayoutRecord) => ({
  payout_id: record.payout_id,
  amount_brl: record.amount_centavos / 100,
  status: record.status,
  destination: record.destination,
  external_id: record.external_id,
  failure_reason: record.failure_reason,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

describe('api gateway: payouts and the payout account', () => {
  const h = harnessWithMerchantForTheseTests('gw-payouts', { merchant: 'Loja Saque', services: ['ledger'] });

  const post = (body: unknown, merchant: Business = h.merchant, key?: string) => {
    const request = h.http.post('/v1/payouts').set('x-api-key', merchant.api_key);
    if (key) request.set('Idempotency-Key', key);
    return request.send(body as object);
  };
  const get = (path: string, merchant: Business = h.merchant) =>
    h.http.get(path).set('x-api-key', merchant.api_key);
  const putAccount = (businessId: string, body: unknown, token: string | null = ADMIN_TOKEN) => {
    const request = h.http.put(`/admin/v1/businesses/${businessId}/payout-account`);
    if (token) request.set('Authorization', `Bearer ${token}`);
    return request.send(body as object);
  };

  test('POST /v1/payouts asks the ledger for the amount, or all available, and answers the payout in BRL', async () => {
    h.fakes.on(createPayout, async ({ business_id, amount_centavos }) =>
      aPayoutRecord(business_id, { amount_centavos: amount_centavos ?? 77_777 }),
    );
    const some = await post({ amount: 5_000 });
    expect(some.status).toBe(201);
    expect(some.body).toEqual({
      payout_id: expect.stringMatching(/^po_/),
      amount_brl: 50,
      status: 'pending',
      destination: { pix_key_masked: '**.345.678/0001-**' },
      external_id: null,
      failure_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const all = await post({});
    expect(all.status).toBe(201);
    expect(all.body.amount_brl).toBe(777.77);
    expect(h.fakes.receivedOf(createPayout).slice(-2)).toEqual([
      { business_id: h.merchant.business_id, amount_centavos: 5_000 },
      { business_id: h.merchant.business_id, amount_centavos: null },
    ]);
  });

  test('an API key never chooses the destination: every field but amount is dropped before the ledger', async () => {
    h.fakes.on(createPayout, async ({ business_id }) => aPayoutRecord(business_id));
    const response = await post({
      amount: 1_000,
      pix_key: 'ladrao@example.com',
      pix_key_type: 'email',
      holder_document: '12345678901',
      destination: { pix_key: 'ladrao@example.com' },
      business_id: newPublicId('biz'),
    });
    expect(response.status).toBe(201);
    expect(h.fakes.receivedOf(createPayout).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      amount_centavos: 1_000,
    });
  });

  test('hostile amounts are INVALID_AMOUNT (or the body refused) and never reach the ledger', async () => {
    const before = h.fakes.receivedOf(createPayout).length;
    for (const amount of [99, 0, -500, 10.5, 1e15, Number.MAX_SAFE_INTEGER + 2, '5000', true, [100], {}]) {
      const response = await post({ amount });
      expect([amount, response.status, response.body.error?.code]).toEqual([amount, 422, 'INVALID_AMOUNT']);
    }
    // A NUL byte in any text of a body is refused as such, before the fields are read.
    const nul = await post({ amount: '\u0000' });
    expect([nul.status, nul.body.error.code]).toEqual([422, 'INVALID_FIELDS']);
    for (const body of ['[]', '"100"', 'null', '{"amount":', '{"amount":1\u0000}']) {
      const response = await h.http
        .post('/v1/payouts')
        .set('x-api-key', h.merchant.api_key)
        .set('content-type', 'application/json')
        .send(body);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.body.error.code).toEqual(expect.any(String));
    }
    expect(h.fakes.receivedOf(createPayout)).toHaveLength(before);
  });

  test("the ledger's refusals are the contract's 422s", async () => {
    for (const code of ['INSUFFICIENT_BALANCE', 'NO_PAYOUT_ACCOUNT'] as const) {
      h.fakes.on(createPayout, async () => {
        throw new CommandError(code, 'recusado');
      });
      const response = await post({ amount: 1_000 });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ error: { code, message: 'recusado' } });
    }
  });

  test('an Idempotency-Key makes one payout: a repeat replays it, another body under it conflicts', async () => {
    h.fakes.on(createPayout, async ({ business_id, amount_centavos }) =>
      aPayoutRecord(business_id, { amount_centavos: amount_centavos ?? 1 }),
    );
    const key = `saque-${newPublicId('k')}`;
    const before = h.fakes.receivedOf(createPayout).length;
    const first = await post({ amount: 2_000 }, h.merchant, key);
    const again = await post({ amount: 2_000 }, h.merchant, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(h.fakes.receivedOf(createPayout)).toHaveLength(before + 1);
    const conflict = await post({ amount: 3_000 }, h.merchant, key);
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
  });

  test("GET /v1/payouts/{id}: the caller's own, another business's is NOT_FOUND, a malformed id never asked", async () => {
    const own = aPayoutRecord(h.merchant.business_id, { status: 'paid', external_id: 'E1234' });
    const foreign = aPayoutRecord(newPublicId('biz'));
    h.fakes.on(getPayout, async ({ payout_id }) => {
      if (payout_id === own.payout_id) return own;
      if (payout_id === foreign.payout_id) return foreign;
      throw new CommandError('NOT_FOUND', 'Saque não encontrado.');
    });
    const read = await get(`/v1/payouts/${own.payout_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(publicView(own));
    expect(h.fakes.receivedOf(getPayout).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      payout_id: own.payout_id,
    });
    for (const id of [foreign.payout_id, newPublicId('po')]) {
      const response = await get(`/v1/payouts/${id}`);
      expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
    const asked = h.fakes.receivedOf(getPayout).length;
    for (const id of [
      'po_short',
      '%00',
      `po_${'a'.repeat(30)}%00`,
      newPublicId('pay'),
      'po_' + 'x'.repeat(500),
    ]) {
      const response = await get(`/v1/payouts/${id}`);
      expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect(h.fakes.receivedOf(getPayout)).toHaveLength(asked);
  });

  test('GET /v1/payouts pages newest first with the common cursor rules', async () => {
    const records = [aPayoutRecord(h.merchant.business_id), aPayoutRecord(h.merchant.business_id)];
    h.fakes.on(listPayouts, async () => ({ data: records, has_more: true }));
    const page = await get('/v1/payouts?limit=2');
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ data: records.map(publicView), has_more: true });
    const next = await get(`/v1/payouts?starting_after=${records[1]!.payout_id}`);
    expect(next.status).toBe(200);
    expect(h.fakes.receivedOf(listPayouts).slice(-2)).toEqual([
      { business_id: h.merchant.business_id, limit: 2, starting_after: null },
      { business_id: h.merchant.business_id, limit: 10, starting_after: records[1]!.payout_id },
    ]);
    for (const query of ['limit=0', 'limit=101', 'limit=1.5', 'starting_after=pay_x', 'starting_after=%00']) {
      const response = await get(`/v1/payouts?${query}`);
      expect([response.status, response.body.error.code]).toEqual([422, 'INVALID_FIELDS']);
    }
    // A list with another business's payout in it is never shown.
    h.fakes.on(listPayouts, async () => ({ data: [aPayoutRecord(newPublicId('biz'))], has_more: false }));
    expect((await get('/v1/payouts')).status).toBe(404);
  });

  test('PUT /admin/v1/businesses/{id}/payout-account: operator only, key checked per type, unknown business NOT_FOUND', async () => {
    h.fakes.on(setPayoutAccount, async (command) => ({ ...command, updated_at: new Date().toISOString() }));
    const account = { pix_key: '+5511987654321', pix_key_type: 'phone', holder_document: '12345678901' };
    const set = await putAccount(h.merchant.business_id, account);
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      business_id: h.merchant.business_id,
      ...account,
      updated_at: expect.any(String),
    });
    expect(h.fakes.receivedOf(setPayoutAccount).at(-1)).toEqual({
      business_id: h.merchant.business_id,
      ...account,
    });

    const sent = h.fakes.receivedOf(setPayoutAccount).length;
    expect((await putAccount(h.merchant.business_id, account, null)).status).toBe(401);
    expect((await putAccount(h.merchant.business_id, account, 'wrong')).status).toBe(401);
    const merchantTry = await h.http
      .put(`/admin/v1/businesses/${h.merchant.business_id}/payout-account`)
      .set('x-api-key', h.merchant.api_key)
      .send(account);
    expect(merchantTry.status).toBe(401);
    for (const [body, fields] of [
      [{ ...account, pix_key: '11987654321' }, ['pix_key']],
      [{ ...account, pix_key_type: 'cpf' }, ['pix_key']],
      [{ pix_key: '12345678901', pix_key_type: 'cpf', holder_document: '10987654321' }, ['holder_document']],
      [{ pix_key: 'a@b', pix_key_type: 'email', holder_document: '12345678901' }, ['pix_key']],
      [{ pix_key: 'not-a-uuid', pix_key_type: 'evp', holder_document: '12345678901' }, ['pix_key']],
      [{ ...account, holder_document: '123' }, ['holder_document']],
      [{ ...account, pix_key_type: 'iban' }, ['pix_key_type']],
      [{ ...account, pix_key: 'a\u0000@b.com', pix_key_type: 'email' }, ['pix_key']],
      [{ ...account, pix_key: 'x'.repeat(78) }, ['pix_key']],
    ] as const) {
      const response = await putAccount(h.merchant.business_id, body);
      expect([response.status, response.body.error.code, response.body.error.message]).toEqual([
        422,
        'INVALID_FIELDS',
        expect.stringContaining(fields[0]),
      ]);
    }
    const missing = await putAccount(h.merchant.business_id, { pix_key: '12345678901' });
    expect([missing.status, missing.body.error.code]).toEqual([422, 'MISSING_FIELDS']);
    for (const id of [newPublicId('biz'), 'biz_%00', 'nope']) {
      const response = await putAccount(id, account);
      expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect(h.fakes.receivedOf(setPayoutAccount)).toHaveLength(sent);
  });

  test('every answer of the payout routes, success or error, is as the served OpenAPI document states', async () => {
    const document = (await h.http.get('/openapi.json')).body as OpenApiDocument;
    const validator = new OpenApiResponseValidator(document);
    const own = aPayoutRecord(h.merchant.business_id, {
      status: 'failed',
      failure_reason: 'Chave inexistente',
    });
    h.fakes.on(createPayout, async ({ business_id }) => aPayoutRecord(business_id));
    h.fakes.on(getPayout, async () => own);
    h.fakes.on(listPayouts, async () => ({ data: [own], has_more: false }));
    h.fakes.on(setPayoutAccount, async (command) => ({ ...command, updated_at: new Date().toISOString() }));
    const checks: Array<[string, string, Record<string, string>, unknown, number]> = [
      ['POST', '/v1/payouts', { 'x-api-key': h.merchant.api_key }, { amount: 100 }, 201],
      ['POST', '/v1/payouts', { 'x-api-key': h.merchant.api_key }, { amount: 1 }, 422],
      ['POST', '/v1/payouts', {}, {}, 401],
      ['GET', `/v1/payouts/${own.payout_id}`, { 'x-api-key': h.merchant.api_key }, undefined, 200],
      ['GET', '/v1/payouts/po_x', { 'x-api-key': h.merchant.api_key }, undefined, 404],
      ['GET', '/v1/payouts', { 'x-api-key': h.merchant.api_key }, undefined, 200],
      [
        'PUT',
        `/admin/v1/businesses/${h.merchant.business_id}/payout-account`,
        { authorization: `Bearer ${ADMIN_TOKEN}` },
        { pix_key: '12345678000195', pix_key_type: 'cnpj', holder_document: '12345678000195' },
        200,
      ],
      [
        'PUT',
        `/admin/v1/businesses/${h.merchant.business_id}/payout-account`,
        { authorization: `Bearer ${ADMIN_TOKEN}` },
        { pix_key: '1', pix_key_type: 'cnpj', holder_document: '12345678000195' },
        422,
      ],
    ];
    const problems: string[] = [];
    for (const [method, path, headers, body, status] of checks) {
      const response = await fetch(`${h.gateway.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const check = validator.check(method, new URL(path, h.gateway.url).pathname, {
        status: response.status,
        headers: response.headers,
        body: await response.text(),
      });
      expect([method, path, response.status]).toEqual([method, path, status]);
      problems.push(...check.errors.map((error) => `${method} ${path}: ${error}`));
    }
    expect(problems).toEqual([]);
  });
});
