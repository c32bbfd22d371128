import pg from 'pg';
import { stackWithMerchantForTheseTests, waitFor } from '@gateway/testkit';

jest.setTimeout(120_000);

/**
 * Payment reads answered by the gateway from its own copies (docs/adr/0042-gateway-payment-read-model.md), through
 * the public API of the whole stack: a read right after a write sees it, an outcome arrives by its event, the payment
 * service is off the read path (frozen, reads and lists still answer), a lost copy is made again, a copy that missed a
 * change is set right by the change feed (docs/adr/0043-payment-lists-from-the-change-feed.md), and lists from the
 * copies are the payment service's.
 */
describe('payment reads from the gateway copy', () => {
  const live = stackWithMerchantForTheseTests({
    name: 'Padaria Leitura',
    feeRules: { pix: { percent_bps: 100, fixed_centavos: 0 } },
    webhookEvents: ['payment.confirmed'],
  });
  let database: pg.Client;

  beforeAll(async () => {
    database = new pg.Client({ connectionString: live.stack.env.config.DATABASE_URL });
    // The stack's own teardown (registered first, run first) drops the database under this client.
    database.on('error', () => undefined);
    await database.connect();
  });
  afterAll(async () => {
    await database?.end();
  });

  const api = (method: string, path: string, body?: unknown) =>
    live.client.api(live.apiKey, method, path, body);
  const newPix = async (amount = 2500) =>
    live.client.createPayment(live.apiKey, { payment_method: 'pix', amount, description: 'Pão de queijo' });

  /** Runs `reads` with the payment service stopped (SIGSTOP): whatever it answers, the payment service did not. */
  const withPaymentServiceFrozen = async <T>(reads: () => Promise<T>): Promise<T> => {
    const pid = live.stack.pidOf('payment');
    process.kill(pid, 'SIGSTOP');
    try {
      return await reads();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  };

  test('a payment is read back at once after its create, and with the payment service frozen', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const created = await newPix(1000 + attempt);
      const read = await api('GET', `/v1/payments/${created.payment_id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        payment_id: created.payment_id,
        status: 'processing',
        amount_brl: (1000 + attempt) / 100,
        description: 'Pão de queijo',
        pix: created.pix,
      });
    }
    const created = await newPix();
    const reads = await withPaymentServiceFrozen(() =>
      Promise.all(Array.from({ length: 20 }, () => api('GET', `/v1/payments/${created.payment_id}`))),
    );
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        payment_id: created.payment_id,
        status: 'processing',
        pix: created.pix,
      });
    }
  });

  test('every change is read back at once: new amounts and their QR codes, then the cancel', async () => {
    const created = await newPix(2000);
    for (const amount of [2100, 2200, 2300, 2400, 2500]) {
      const changed = await api('PATCH', `/v1/payments/${created.payment_id}`, { amount });
      expect(changed.status).toBe(200);
      const read = await api('GET', `/v1/payments/${created.payment_id}`);
      expect(read.body).toMatchObject({ amount_brl: amount / 100, pix: changed.body.pix });
      expect(read.body.pix.copia_e_cola).not.toBe(created.pix.copia_e_cola);
    }
    const cancelled = await api('POST', `/v1/payments/${created.payment_id}/cancel`);
    expect(cancelled.status).toBe(200);
    const read = await api('GET', `/v1/payments/${created.payment_id}`);
    expect(read.body).toMatchObject({ status: 'cancelled', amount_brl: 25 });
    expect(read.body.pix).toBeUndefined();
  });

  test('the outcome arrives by its event, and is answered with the payment service frozen', async () => {
    const created = await newPix();
    const started = Date.now();
    await live.client.payInSandbox(live.apiKey, created.payment_id);
    const paid = await live.client.paymentIn(live.apiKey, created.payment_id, 'paid', 20_000);
    // Well inside the copy's 30 s bound: the event, not the age of the copy, brought it.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(paid.payer).toEqual(expect.objectContaining({ name: expect.any(String) }));
    const read = await withPaymentServiceFrozen(() => api('GET', `/v1/payments/${created.payment_id}`));
    expect(read.body).toEqual(paid);
  });

  test("another business's payment is NOT_FOUND, copy or not", async () => {
    const created = await newPix();
    const other = await live.client.createBusiness('Outra Empresa', {});
    const read = await live.client.api(other.apiKey, 'GET', `/v1/payments/${created.payment_id}`);
    expect({ status: read.status, code: read.body.error.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  test('a lost copy is made again from the payment service at its next read', async () => {
    const created = await newPix();
    await database.query(`DELETE FROM api_gateway.payment_copies WHERE payment_id = $1`, [
      created.payment_id,
    ]);
    const read = await api('GET', `/v1/payments/${created.payment_id}`);
    expect(read.body).toMatchObject({
      payment_id: created.payment_id,
      status: 'processing',
      pix: created.pix,
    });
    const again = await withPaymentServiceFrozen(() => api('GET', `/v1/payments/${created.payment_id}`));
    expect(again.body).toEqual(read.body);
  });

  test('a copy that missed a change is set right when the change feed reads the payment again', async () => {
    const created = await newPix();
    await live.client.payInSandbox(live.apiKey, created.payment_id);
    await live.client.paymentIn(live.apiKey, created.payment_id, 'paid');
    // As if payment.confirmed had been lost and the feed had passed the payment by: the copy still says processing.
    await database.query(
      `UPDATE api_gateway.payment_copies
          SET record = record || '{"status": "processing"}'::jsonb, status = 'processing', version = version - 1
        WHERE payment_id = $1`,
      [created.payment_id],
    );
    // The position lost: the feed is read again from its start, and the copies with it.
    await database.query(
      `UPDATE api_gateway.payment_copy_feed
          SET settled_below = '0', generation = nextval('api_gateway.payment_copy_feed_generation')`,
    );
    await waitFor(
      async () => {
        const { rows } = await database.query(
          `SELECT record->>'status' AS status FROM api_gateway.payment_copies WHERE payment_id = $1`,
          [created.payment_id],
        );
        return rows[0]?.status === 'paid' ? true : undefined;
      },
      { timeoutMs: 15_000, what: 'the copy set right by the change feed' },
    );
    expect((await api('GET', `/v1/payments/${created.payment_id}`)).body.status).toBe('paid');
  });

  test("a payment is listed at once after its create, lists are the payment service's, and answered with it frozen", async () => {
    const shop = await live.client.createBusiness('Loja Listada', {
      pix: { percent_bps: 100, fixed_centavos: 0 },
    });
    const listOf = (query = '') => live.client.api(shop.apiKey, 'GET', `/v1/payments${query}`);
    const made: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const created = await live.client.createPayment(shop.apiKey, {
        payment_method: 'pix',
        amount: 1000 + i,
      });
      made.unshift(created.payment_id);
      const listed = await listOf();
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((p: { payment_id: string }) => p.payment_id)).toEqual(made);
    }
    await live.client.payInSandbox(shop.apiKey, made[1]!);
    await live.client.paymentIn(shop.apiKey, made[1]!, 'paid');
    expect((await live.client.api(shop.apiKey, 'POST', `/v1/payments/${made[2]}/cancel`)).status).toBe(200);
    // What the payment service holds, in its order.
    const owned = async (status?: string) => {
      const { rows } = await database.query(
        `SELECT id FROM payment.payments WHERE business_id = $1 AND ($2::text IS NULL OR status = $2)
          ORDER BY created_at DESC, id DESC`,
        [shop.businessId, status ?? null],
      );
      return rows.map((row: { id: string }) => row.id);
    };
    const ids = (page: Awaited<ReturnType<typeof listOf>>): string[] =>
      page.body.data.map((payment: { payment_id: string }) => payment.payment_id);
    await waitFor(async () => (ids(await listOf('?status=paid'))[0] === made[1] ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the paid payment in the list',
    });
    const answers = await withPaymentServiceFrozen(async () => ({
      all: await listOf(),
      paid: await listOf('?status=paid'),
      cancelled: await listOf('?status=cancelled'),
      page: await listOf(`?limit=2&starting_after=${made[0]}`),
    }));
    expect(ids(answers.all)).toEqual(await owned());
    expect(ids(answers.paid)).toEqual(await owned('paid'));
    expect(ids(answers.cancelled)).toEqual(await owned('cancelled'));
    expect(ids(answers.page)).toEqual(made.slice(1, 3));
    expect(answers.page.body.has_more).toBe(true);
    expect(answers.all.body.data[1]).toMatchObject({ payment_id: made[1], status: 'paid' });
  });
});
