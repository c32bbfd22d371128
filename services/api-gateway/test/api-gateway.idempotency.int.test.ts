import { createCustomer, createPayment, createWebhook, newPublicId } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { aPixPaymentView, letTimePass, waitFor } from '@gateway/testkit';
import { aCustomer, aWebhookCreatedFor } from './support/builders';
import { harnessWithMerchantForTheseTests } from './support/harness';

/** How long the fake payment service takes to create a payment: two concurrent requests overlap within it. */
const PAYMENT_SERVICE_LATENCY_MS = 200;

describe('api gateway: Idempotency-Key', () => {
  const h = harnessWithMerchantForTheseTests('gw-idem', {
    services: ['payment', 'customer', 'webhook-dispatcher'],
    config: { IDEMPOTENCY_PURGE_INTERVAL_MS: 200 },
  });

  beforeAll(() => {
    // Each answer is a new payment.
    h.fakes.on(createPayment, async (command) => {
      await letTimePass(PAYMENT_SERVICE_LATENCY_MS);
      return aPixPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos });
    });
  });

  const create = (key: string, body: object) =>
    h.http.post('/v1/payments').set('x-api-key', h.merchant.api_key).set('Idempotency-Key', key).send(body);

  test('two concurrent identical POSTs with one key run the command once and get identical answers', async () => {
    const key = newPublicId('idem');
    const before = h.fakes.receivedOf(createPayment).length;
    const [first, second] = await Promise.all([
      create(key, { payment_method: 'pix', amount: 4200 }),
      create(key, { amount: 4200, payment_method: 'pix' }),
    ]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(h.fakes.receivedOf(createPayment)).toHaveLength(before + 1);
  });

  test('a later retry with the same key and body replays the first answer byte for byte', async () => {
    const key = newPublicId('idem');
    const first = await create(key, { payment_method: 'pix', amount: 1500, metadata: '{"pedido":1}' });
    const again = await create(key, { payment_method: 'pix', amount: 1500, metadata: '{"pedido":1}' });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  test('the same key with a different body is IDEMPOTENCY_CONFLICT (409)', async () => {
    const key = newPublicId('idem');
    await create(key, { payment_method: 'pix', amount: 1500 });
    const conflict = await create(key, { payment_method: 'pix', amount: 1600 });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ error: { code: 'IDEMPOTENCY_CONFLICT', message: expect.any(String) } });
  });

  test('keys are per business: another business may use the same key', async () => {
    const key = newPublicId('idem');
    const other = await h.newBusiness('Outra');
    const mine = await create(key, { payment_method: 'pix', amount: 1500 });
    const theirs = await h.http
      .post('/v1/payments')
      .set('x-api-key', other.api_key)
      .set('Idempotency-Key', key)
      .send({ payment_method: 'pix', amount: 1500 });
    expect(theirs.status).toBe(201);
    expect(theirs.body.payment_id).not.toBe(mine.body.payment_id);
  });

  test('after a 5xx answer a retry with the same body runs again, with the same command id downstream', async () => {
    const key = newPublicId('idem');
    let calls = 0;
    h.fakes.on(createCustomer, async (command) => {
      calls += 1;
      if (calls === 1) throw new CommandError('SERVICE_UNAVAILABLE', 'indisponível');
      return aCustomer({ business_id: command.business_id, email: command.email, ip: command.ip });
    });
    const send = () =>
      h.http
        .post('/v1/customers')
        .set('x-api-key', h.merchant.api_key)
        .set('Idempotency-Key', key)
        .send({ email: 'joana@example.com' });
    const failed = await send();
    expect(failed.status).toBe(503);
    const retried = await send();
    expect(retried.status).toBe(201);
    const ids = h.fakes.received
      .filter((entry) => entry.name === createCustomer.name)
      .map((e) => e.messageId);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  test('after a 5xx, the same key with a different body is still a conflict and nothing is sent downstream', async () => {
    const key = newPublicId('idem');
    h.fakes.on(createCustomer, async () => {
      throw new CommandError('SERVICE_UNAVAILABLE', 'indisponível');
    });
    const send = (email: string) =>
      h.http
        .post('/v1/customers')
        .set('x-api-key', h.merchant.api_key)
        .set('Idempotency-Key', key)
        .send({ email });
    expect((await send('joana@example.com')).status).toBe(503);
    const sentBefore = h.fakes.received.filter((entry) => entry.name === createCustomer.name).length;
    const conflicting = await send('outra@example.com');
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(h.fakes.received.filter((entry) => entry.name === createCustomer.name)).toHaveLength(sentBefore);
  });

  const db = <T>(sql: string, params: unknown[]): Promise<T> =>
    h.gateway.runtime.dataSource.query(sql, params);
  const commandIdsOf = (name: string) =>
    h.fakes.received.filter((entry) => entry.name === name).map((entry) => entry.messageId);

  test('a key reused after its record expired creates a new payment under a new command id, never the old one', async () => {
    const key = newPublicId('idem');
    const body = { payment_method: 'pix', amount: 2500 };
    const sentBefore = commandIdsOf(createPayment.name).length;
    const first = await create(key, body);
    // 24 hours later: the record has expired (the purge may or may not have deleted it yet).
    await db(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);
    const again = await create(key, body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.payment_id).not.toBe(first.body.payment_id);
    const ids = commandIdsOf(createPayment.name).slice(sentBefore);
    expect(ids).toHaveLength(2);
    expect(ids[1]).not.toBe(ids[0]);
  });

  test('an attempt abandoned by a gateway that died is taken over under the same claim and command id', async () => {
    const key = newPublicId('idem');
    h.fakes.on(createCustomer, async () => {
      throw new CommandError('SERVICE_UNAVAILABLE', 'indisponível');
    });
    const send = () =>
      h.http
        .post('/v1/customers')
        .set('x-api-key', h.merchant.api_key)
        .set('Idempotency-Key', key)
        .send({ email: 'bia@example.com' });
    expect((await send()).status).toBe(503);
    // As if the gateway had died mid-request: the claim is still in progress, its lease run out.
    await db(
      `UPDATE idempotency_keys SET state = 'in_progress', lease_expires_at = now() - interval '1 second'
        WHERE key = $1`,
      [key],
    );
    expect((await send()).status).toBe(503);
    const ids = commandIdsOf(createCustomer.name).slice(-2);
    expect(ids[1]).toBe(ids[0]);
  });

  test('a webhook created with a key: its stored answer is sealed, yet a retry gets the secret back', async () => {
    const secret = `whsec_${newPublicId('s')}`;
    h.fakes.on(createWebhook, async (command) => aWebhookCreatedFor(command, secret));
    const key = newPublicId('idem');
    const send = () =>
      h.http
        .post('/v1/webhook')
        .set('x-api-key', h.merchant.api_key)
        .set('Idempotency-Key', key)
        .send({ url: 'https://hooks.example.com/pagamentos', events: ['payment.confirmed'] });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body.secret).toBe(secret);
    const [row] = await db<Array<Record<string, unknown>>>(`SELECT * FROM idempotency_keys WHERE key = $1`, [
      key,
    ]);
    const stored = Object.values(row!).map((value) =>
      Buffer.isBuffer(value) ? value.toString('latin1') : String(value),
    );
    expect(stored.join('\n')).not.toContain(secret.slice('whsec_'.length));
    expect(row!.response_sealed).toMatch(/^v1:/);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  test('expired idempotency records are purged by the periodic job and counted; live ones stay', async () => {
    const expired = newPublicId('idem');
    const live = newPublicId('idem');
    await create(expired, { payment_method: 'pix', amount: 3100 });
    await create(live, { payment_method: 'pix', amount: 3200 });
    await db(`UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE key = $1`, [
      expired,
    ]);
    await waitFor(async () => {
      const rows = await db<unknown[]>(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [expired]);
      return rows.length === 0;
    });
    const rows = await db<unknown[]>(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [live]);
    expect(rows).toHaveLength(1);
    const metrics = (await h.http.get('/metrics')).text;
    const purged = /^api_gateway_idempotency_keys_purged_total(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1];
    expect(Number(purged)).toBeGreaterThanOrEqual(1);
  });

  test('a 4xx answer is kept and replayed too', async () => {
    const key = newPublicId('idem');
    const first = await create(key, { payment_method: 'pix', amount: 10 });
    const again = await create(key, { payment_method: 'pix', amount: 10 });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
  });
});
