import { createPayment, createPayout, createWebhook, getPayment } from '@gateway/contracts';
import { aPaymentRecord, waitFor } from '@gateway/testkit';
import { ADMIN_TOKEN, harnessWithMerchantForTheseTests, type Business } from './support/harness';

/** A key as the operator API answers it, shown once. */
interface IssuedKey {
  business_id: string;
  api_key: string;
  key_prefix: string;
  scopes: string[] | null;
}

interface ListedKey {
  key_prefix: string;
  scopes: string[] | null;
  status: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rolled_to: string | null;
}

const PAYMENT_ID = 'pay_abcdefghijklmnopqrstuvwx';

describe('api gateway: API keys limited to scopes, rolled with an overlap', () => {
  const h = harnessWithMerchantForTheseTests('gw-key-scopes', {
    merchant: 'Loja Escopos',
    services: ['payment', 'ledger', 'webhook-dispatcher'],
  });

  beforeAll(() => {
    h.fakes.on(getPayment, async (query) => ({
      payment: aPaymentRecord({ business_id: query.business_id, payment_id: query.payment_id }),
    }));
  });

  const admin = (method: 'get' | 'post' | 'delete', path: string) =>
    h.http[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  const issue = async (body: object, merchant: Business = h.merchant): Promise<IssuedKey> => {
    const issued = await admin('post', `/admin/v1/businesses/${merchant.business_id}/api-keys`).send(body);
    expect(issued.status).toBe(201);
    return issued.body as IssuedKey;
  };
  const roll = (keyPrefix: string, body: object = {}) =>
    admin('post', `/admin/v1/api-keys/${encodeURIComponent(keyPrefix)}/roll`).send(body);
  const readPayment = (apiKey: string) => h.http.get(`/v1/payments/${PAYMENT_ID}`).set('x-api-key', apiKey);
  const listedKeys = async (merchant: Business = h.merchant): Promise<ListedKey[]> =>
    (await admin('get', `/admin/v1/businesses/${merchant.business_id}`)).body.api_keys as ListedKey[];
  const idempotencyRecords = async (businessId: string): Promise<number> => {
    const rows: Array<{ count: string }> = await h.gateway.runtime.dataSource.query(
      'SELECT count(*) FROM idempotency_keys WHERE business_id = $1',
      [businessId],
    );
    return Number(rows[0]!.count);
  };
  const expectForbidden = (response: { status: number; body: unknown }, scope: string) => {
    expect({ status: response.status, body: response.body }).toEqual({
      status: 403,
      body: { error: { code: 'FORBIDDEN', message: expect.stringContaining(scope) } },
    });
  };

  test('a read-only key reads a payment, but creating one is FORBIDDEN naming payments:write, and nothing is sent or recorded', async () => {
    const readOnly = await issue({ scopes: ['read_only'] });
    expect(readOnly.scopes).toEqual(
      expect.arrayContaining(['payments:read', 'payouts:read', 'webhooks:read']),
    );
    expect(readOnly.scopes!.filter((scope) => scope.endsWith(':write'))).toEqual([]);
    expect((await readPayment(readOnly.api_key)).status).toBe(200);

    const before = await idempotencyRecords(h.merchant.business_id);
    const refused = await h.http
      .post('/v1/payments')
      .set('x-api-key', readOnly.api_key)
      .set('Idempotency-Key', 'scoped-create-1')
      .send({ amount: 5000, payment_method: 'pix' });
    expectForbidden(refused, 'payments:write');
    // The gateway answers a command's reply before it answers the request: none was asked, and no key recorded.
    expect(h.fakes.receivedOf(createPayment)).toEqual([]);
    expect(await idempotencyRecords(h.merchant.business_id)).toBe(before);
    // Another mutation, with a body that would fail its own checks: the scope is refused first.
    expectForbidden(
      await h.http.post('/v1/payouts').set('x-api-key', readOnly.api_key).send({}),
      'payouts:write',
    );
  });

  test('a payments-only key reads and writes payments, but cannot create a payout or a webhook', async () => {
    const paymentsOnly = await issue({ scopes: ['payments:write'] });
    const before = await idempotencyRecords(h.merchant.business_id);
    expect(paymentsOnly.scopes).toEqual(['payments:write']);
    expect((await readPayment(paymentsOnly.api_key)).status).toBe(200);
    const payout = await h.http
      .post('/v1/payouts')
      .set('x-api-key', paymentsOnly.api_key)
      .set('Idempotency-Key', 'scoped-payout-1')
      .send({ amount: 10_000 });
    expectForbidden(payout, 'payouts:write');
    const webhook = await h.http
      .post('/v1/webhook')
      .set('x-api-key', paymentsOnly.api_key)
      .send({ url: 'https://example.com/hook', events: ['payment.confirmed'] });
    expectForbidden(webhook, 'webhooks:write');
    expectForbidden(await h.http.get('/v1/balance').set('x-api-key', paymentsOnly.api_key), 'balance:read');
    expect(h.fakes.receivedOf(createPayout)).toEqual([]);
    expect(h.fakes.receivedOf(createWebhook)).toEqual([]);
    expect(await idempotencyRecords(h.merchant.business_id)).toBe(before);
  });

  test('a key issued without scopes, like every key before, may do everything', async () => {
    const full = await issue({});
    expect(full.scopes).toBeNull();
    const plain = await admin('post', `/admin/v1/businesses/${h.merchant.business_id}/api-keys`);
    expect({ status: plain.status, scopes: plain.body.scopes }).toEqual({ status: 201, scopes: null });
    expect((await readPayment(full.api_key)).status).toBe(200);
    expect((await readPayment(h.merchant.api_key)).status).toBe(200);
  });

  test("a business's keys are listed with their scopes and status, never their secret", async () => {
    const other = await h.newBusiness('Loja Lista');
    const scoped = await issue({ scopes: ['refunds:write', 'payments:read'] }, other);
    const listed = await listedKeys(other);
    expect(listed).toEqual([
      {
        key_prefix: scoped.key_prefix,
        scopes: ['payments:read', 'refunds:write'],
        status: 'active',
        purpose: 'merchant',
        created_at: expect.any(String),
        expires_at: null,
        revoked_at: null,
        rolled_to: null,
      },
      expect.objectContaining({ key_prefix: other.key_prefix, scopes: null, status: 'active' }),
    ]);
    const shown = (await admin('get', `/admin/v1/businesses/${other.business_id}`)).text;
    for (const secret of [scoped.api_key, other.api_key]) expect(shown).not.toContain(secret.slice(8));
  });

  test('unknown, empty or hostile scopes are refused in the contract shape, and no key is issued', async () => {
    const other = await h.newBusiness('Loja Hostil');
    const path = `/admin/v1/businesses/${other.business_id}/api-keys`;
    const cases: Array<[unknown, number, string]> = [
      [{ scopes: ['payments:delete'] }, 422, 'INVALID_FIELDS'],
      [{ scopes: [] }, 422, 'INVALID_FIELDS'],
      [{ scopes: 'read_only' }, 422, 'INVALID_FIELDS'],
      [{ scopes: [null] }, 422, 'INVALID_FIELDS'],
      [{ scopes: [{ scope: 'payments:read' }] }, 422, 'INVALID_FIELDS'],
      [{ scopes: ['payments:read\u0000'] }, 422, 'INVALID_FIELDS'],
      [{ scopes: Array(1000).fill('payments:read') }, 422, 'INVALID_FIELDS'],
      [{ scopes: ['x'.repeat(60_000)] }, 422, 'INVALID_FIELDS'],
      [{ scopes: ['x'.repeat(70_000)] }, 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [body, status, code] of cases) {
      const refused = await admin('post', path).send(body as object);
      expect({
        body: JSON.stringify(body).slice(0, 60),
        status: refused.status,
        error: refused.body,
      }).toEqual({
        body: JSON.stringify(body).slice(0, 60),
        status,
        error: { error: { code, message: expect.any(String) } },
      });
      if (code === 'INVALID_FIELDS') expect(refused.body.error.message).toContain('scopes');
    }
    const malformed = await admin('post', path).set('Content-Type', 'application/json').send('{"scopes": [');
    expect({ status: malformed.status, code: malformed.body.error?.code }).toEqual({
      status: 400,
      code: 'INVALID_JSON',
    });
    expect((await listedKeys(other)).map((key) => key.key_prefix)).toEqual([other.key_prefix]);
  });

  test('a rolled key keeps its scopes in the new key, works until its overlap ends and not after', async () => {
    const old = await issue({ scopes: ['payments:read'] });
    const rolled = await roll(old.key_prefix, { expires_in_seconds: 2 });
    expect(rolled.status).toBe(201);
    expect(rolled.body).toEqual({
      business_id: h.merchant.business_id,
      api_key: expect.stringMatching(/^sk_test_/),
      key_prefix: expect.any(String),
      scopes: ['payments:read'],
      previous_key_prefix: old.key_prefix,
      previous_key_expires_at: expect.any(String),
    });
    const expiresAt = Date.parse(rolled.body.previous_key_expires_at);
    expect(expiresAt).toBeGreaterThan(Date.now());

    // Within the overlap both keys work, the new one with the old one's scopes.
    expect((await readPayment(old.api_key)).status).toBe(200);
    expect((await readPayment(rolled.body.api_key)).status).toBe(200);
    expectForbidden(
      await h.http.post('/v1/payments').set('x-api-key', rolled.body.api_key).send({}),
      'payments:write',
    );
    const during = (await listedKeys()).find((key) => key.key_prefix === old.key_prefix);
    expect(during).toMatchObject({ status: 'rolled', rolled_to: rolled.body.key_prefix });

    // The old key is refused once its expiry has passed, and not before: every success was asked before it.
    let lastSuccessAskedAt = 0;
    await waitFor(
      async () => {
        const askedAt = Date.now();
        const answered = await readPayment(old.api_key);
        if (answered.status === 200) lastSuccessAskedAt = askedAt;
        return answered.status === 401;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the rolled key to stop working' },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(lastSuccessAskedAt).toBeLessThan(expiresAt);
    expect((await readPayment(rolled.body.api_key)).status).toBe(200);
    const after = (await listedKeys()).find((key) => key.key_prefix === old.key_prefix);
    expect(after).toMatchObject({ status: 'expired', expires_at: rolled.body.previous_key_expires_at });
  });

  test('a roll with no overlap stops the old key at once; the default overlap is a day', async () => {
    const now = await issue({});
    expect((await readPayment(now.api_key)).status).toBe(200); // its lookup is cached now
    const rolledNow = await roll(now.key_prefix, { expires_in_seconds: 0 });
    expect(rolledNow.status).toBe(201);
    expect((await readPayment(now.api_key)).status).toBe(401);
    expect(rolledNow.body.scopes).toBeNull();
    expect((await readPayment(rolledNow.body.api_key)).status).toBe(200);

    const aDay = await issue({});
    const before = Date.now();
    const rolledLater = await roll(aDay.key_prefix);
    expect(rolledLater.status).toBe(201);
    const overlap = Date.parse(rolledLater.body.previous_key_expires_at) - before;
    expect(overlap).toBeGreaterThan(86_400_000 - 60_000);
    expect(overlap).toBeLessThan(86_400_000 + 60_000);
    expect((await readPayment(aDay.api_key)).status).toBe(200);
  });

  test('only an active key rolls: a rolled, revoked or unknown one is refused, and the overlap is bounded', async () => {
    const key = await issue({});
    expect((await roll(key.key_prefix, { expires_in_seconds: 60 })).status).toBe(201);
    const again = await roll(key.key_prefix);
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 422,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('rolled') },
    });
    const revoked = await issue({});
    expect((await admin('delete', `/admin/v1/api-keys/${revoked.key_prefix}`)).status).toBe(200);
    const ofRevoked = await roll(revoked.key_prefix);
    expect({ status: ofRevoked.status, error: ofRevoked.body.error }).toEqual({
      status: 422,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('revoked') },
    });
    expect((await roll('doesnotexist')).status).toBe(404);
    expect((await roll('short')).status).toBe(404);
    const fresh = await issue({});
    for (const expires_in_seconds of [-1, 604_801, 1.5, '60', null, 'x\u0000']) {
      const refused = await roll(fresh.key_prefix, { expires_in_seconds });
      expect({ expires_in_seconds, status: refused.status, code: refused.body.error?.code }).toEqual({
        expires_in_seconds,
        status: 422,
        code: 'INVALID_FIELDS',
      });
    }
    expect((await listedKeys()).find((listed) => listed.key_prefix === fresh.key_prefix)).toMatchObject({
      status: 'active',
    });
  });

  test('a rolled key revoked during its overlap stops working within 5 seconds', async () => {
    const key = await issue({});
    const rolled = await roll(key.key_prefix, { expires_in_seconds: 3600 });
    expect((await readPayment(key.api_key)).status).toBe(200);
    expect((await admin('delete', `/admin/v1/api-keys/${key.key_prefix}`)).status).toBe(200);
    const startedAt = Date.now();
    await waitFor(async () => (await readPayment(key.api_key)).status === 401, {
      timeoutMs: 5000,
      intervalMs: 100,
      what: 'the revoked key to be refused',
    });
    expect(Date.now() - startedAt).toBeLessThanOrEqual(5000);
    expect((await readPayment(rolled.body.api_key)).status).toBe(200);
  });

  test('racing rolls of one key issue exactly one new key, every time', async () => {
    const other = await h.newBusiness('Loja Corrida');
    for (let round = 0; round < 10; round += 1) {
      const key = await issue({ scopes: ['payments:read'] }, other);
      const answers = await Promise.all(Array.from({ length: 5 }, () => roll(key.key_prefix)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect({ round, statuses }).toEqual({ round, statuses: [201, 422, 422, 422, 422] });
      const winner = answers.find((answer) => answer.status === 201)!;
      const keys = await listedKeys(other);
      const successors = keys.filter((listed) => listed.key_prefix === winner.body.key_prefix);
      expect(successors).toHaveLength(1);
      expect(keys.find((listed) => listed.key_prefix === key.key_prefix)).toMatchObject({
        status: 'rolled',
        rolled_to: winner.body.key_prefix,
      });
    }
    // The first key, then per round the issued key and its one successor.
    expect(await listedKeys(other)).toHaveLength(1 + 10 * 2);
  });
});
