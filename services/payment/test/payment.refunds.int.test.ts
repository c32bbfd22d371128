import {
  createRefund,
  cryptoRefundSettled,
  cryptoRequestSettled,
  getRefund,
  listRefunds,
  newPublicId,
  pixRefundSettled,
  type CreateRefund,
  type RefundRecord,
  type RefundSettled,
} from '@gateway/contracts';
import { publishAndAwaitHandling, waitFor } from '@gateway/testkit';
import { listRefundsOf } from '../src/persistence';
import { paymentServiceForTheseTests } from './support/harness';
import { aCryptoRequestSettled, aRefundSettlement } from './support/rail-events';

describe('refunds: opened under the payment lock, carried out by the rail, settled once', () => {
  const h = paymentServiceForTheseTests('payment-refunds');

  const refund = (command: Omit<CreateRefund, 'amount_centavos'> & { amount_centavos?: number | null }) =>
    h.request(createRefund, command);

  const refundOk = async (command: Parameters<typeof refund>[0]): Promise<RefundRecord> => {
    const reply = await refund(command);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  /** The rail requests the service wrote to its outbox for a payment, in order. */
  const railRequests = async (paymentId: string) => {
    const rows: Array<{ name: string; payload: Record<string, unknown> }> = await h.service.dataSource.query(
      `SELECT name, envelope->'payload' AS payload FROM outbox
        WHERE name LIKE '%.refund.requested.v1' AND envelope->'payload'->>'payment_id' = $1 ORDER BY seq`,
      [paymentId],
    );
    return rows;
  };

  const refundEvents = async (refundId: string) => {
    const rows: Array<{ name: string; refund: RefundRecord }> = await h.service.dataSource.query(
      `SELECT name, envelope->'payload'->'refund' AS refund FROM outbox
        WHERE name LIKE 'refund.%' AND envelope->'payload'->'refund'->>'refund_id' = $1 ORDER BY seq`,
      [refundId],
    );
    return rows;
  };

  const settle = async (settled: RefundSettled, definition = pixRefundSettled): Promise<void> => {
    await h.waitForHandled([await h.publishEvent(definition, settled)]);
  };

  const readRefund = async (businessId: string, refundId: string) =>
    h.request(getRefund, { business_id: businessId, refund_id: refundId });

  test('a full PIX refund by default: pending, the PIX adapter asked, then succeeded with the payment refunded', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 12345);
    const opened = await refundOk({ business_id: businessId, payment_id: paymentId, reason: 'devolução' });
    expect(opened).toMatchObject({
      refund_id: expect.stringMatching(/^ref_/),
      payment_id: paymentId,
      business_id: businessId,
      method: 'pix',
      amount_centavos: 12345,
      status: 'pending',
      reason: 'devolução',
      failure_reason: null,
      external_id: null,
    });
    expect(await railRequests(paymentId)).toEqual([
      {
        name: 'pix.refund.requested.v1',
        payload: {
          refund_id: opened.refund_id,
          payment_id: paymentId,
          amount_centavos: 12345,
          payment_amount_centavos: 12345,
          reason: 'devolução',
        },
      },
    ]);

    await settle(aRefundSettlement(opened, { external_id: 'D1234567890' }));
    const read = await readRefund(businessId, opened.refund_id);
    expect(read).toMatchObject({ ok: true, result: { status: 'succeeded', external_id: 'D1234567890' } });
    const { payment } = await h.readPayment(businessId, paymentId);
    expect(payment).toMatchObject({ status: 'paid', refunded_centavos: 12345 });
    expect((await refundEvents(opened.refund_id)).map((row) => row.name)).toEqual(['refund.succeeded.v1']);
    // Nothing is left to refund.
    expect(await refund({ business_id: businessId, payment_id: paymentId })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_AMOUNT' },
    });
  });

  test('partial refunds add up to the amount and no further; a failed one frees its share', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 10000);
    const first = await refundOk({ business_id: businessId, payment_id: paymentId, amount_centavos: 3000 });
    const second = await refundOk({ business_id: businessId, payment_id: paymentId, amount_centavos: 7000 });
    expect(
      await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 100 }),
    ).toMatchObject({
      ok: false,
      error: { code: 'INVALID_AMOUNT', message: expect.stringContaining('0 centavos') },
    });
    await settle(aRefundSettlement(second, { outcome: 'failed', failure_reason: 'NAO_REALIZADO' }));
    expect(await readRefund(businessId, second.refund_id)).toMatchObject({
      ok: true,
      result: { status: 'failed', failure_reason: 'NAO_REALIZADO' },
    });
    expect((await refundEvents(second.refund_id)).map((row) => row.name)).toEqual(['refund.failed.v1']);
    // The failed 7000 is refundable again; the pending 3000 is not.
    expect(
      await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 7001 }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });
    const third = await refundOk({ business_id: businessId, payment_id: paymentId });
    expect(third.amount_centavos).toBe(7000);
    await settle(aRefundSettlement(first));
    await settle(aRefundSettlement(third));
    expect((await h.readPayment(businessId, paymentId)).payment.refunded_centavos).toBe(10000);

    const page = await h.request(listRefunds, { business_id: businessId, payment_id: paymentId, limit: 2 });
    if (!page.ok) throw new Error(JSON.stringify(page.error));
    expect(page.result.data.map((r) => r.refund_id)).toEqual([third.refund_id, second.refund_id]);
    expect(page.result.has_more).toBe(true);
    const rest = await h.request(listRefunds, {
      business_id: businessId,
      payment_id: paymentId,
      limit: 2,
      starting_after: second.refund_id,
    });
    expect(rest).toMatchObject({ ok: true, result: { has_more: false } });
    if (rest.ok) expect(rest.result.data.map((r) => r.refund_id)).toEqual([first.refund_id]);
  });

  test('only a paid payment is refunded; another business, unknown ids and amounts out of bounds are refused', async () => {
    const businessId = await h.newBusiness();
    const open = await h.createPayment(businessId);
    expect(await refund({ business_id: businessId, payment_id: open.payment.payment_id })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_STATUS', message: expect.stringContaining('processing') },
    });
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const stranger = await h.newBusiness();
    expect(await refund({ business_id: stranger, payment_id: paymentId })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await refund({ business_id: businessId, payment_id: newPublicId('pay') })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(
      await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 5001 }),
    ).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });
    const mine = await refundOk({ business_id: businessId, payment_id: paymentId, amount_centavos: 100 });
    expect(await readRefund(stranger, mine.refund_id)).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await h.request(listRefunds, { business_id: stranger, payment_id: paymentId })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  test('a PIX paid over 90 days ago is REFUND_NOT_ALLOWED; a crypto payment as old is still refunded', async () => {
    const businessId = await h.newBusiness();
    const pixId = await h.paidPixPayment(businessId, 10000);
    const crypto = await h.createPayment(businessId, { method: 'crypto', token: 'usdc' });
    await h.client.publish(cryptoRequestSettled, aCryptoRequestSettled(crypto.payment));
    await h.waitForPaymentStatus(businessId, crypto.payment.payment_id, 'paid');
    // The PIX refund window is counted from the payment, as the BCB counts it from the Pix settlement.
    await h.service.dataSource.query(`ALTER TABLE payments DISABLE TRIGGER payments_final_rows_frozen`);
    await h.service.dataSource.query(
      `UPDATE payments SET paid_at = now() - interval '91 days' WHERE id = ANY($1)`,
      [[pixId, crypto.payment.payment_id]],
    );
    await h.service.dataSource.query(`ALTER TABLE payments ENABLE TRIGGER payments_final_rows_frozen`);
    expect(await refund({ business_id: businessId, payment_id: pixId })).toMatchObject({
      ok: false,
      error: { code: 'REFUND_NOT_ALLOWED', message: expect.stringContaining('90 dias') },
    });
    const cryptoRefund = await refundOk({
      business_id: businessId,
      payment_id: crypto.payment.payment_id,
      amount_centavos: 2500,
    });
    expect(cryptoRefund.method).toBe('crypto');
    expect(await railRequests(crypto.payment.payment_id)).toEqual([
      expect.objectContaining({ name: 'crypto.refund.requested.v1' }),
    ]);
    await settle(aRefundSettlement(cryptoRefund, { external_id: 'signature' }), cryptoRefundSettled);
    expect((await h.readPayment(businessId, crypto.payment.payment_id)).payment.refunded_centavos).toBe(2500);
  });

  test('many refunds racing never reserve more than the paid amount (many tries)', async () => {
    const businessId = await h.newBusiness();
    for (let round = 0; round < 4; round += 1) {
      const paymentId = await h.paidPixPayment(businessId, 1000);
      const replies = await Promise.all(
        Array.from({ length: 16 }, () =>
          refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 300 }),
        ),
      );
      const accepted = replies.filter((reply) => reply.ok);
      expect(accepted).toHaveLength(3);
      expect(replies.filter((reply) => !reply.ok && reply.error.code === 'INVALID_AMOUNT')).toHaveLength(13);
      const [sums] = await h.service.dataSource.query(
        `SELECT refund_reserved_centavos::int AS reserved, (SELECT sum(amount_centavos)::int FROM refunds
            WHERE payment_id = $1 AND status <> 'failed') AS refunds FROM payments WHERE id = $1`,
        [paymentId],
      );
      expect(sums).toEqual({ reserved: 900, refunds: 900 });
    }
  });

  test('the database refuses a refund past the amount, a pending one changing its terms, a settled one changing, one born settled', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 1000);
    const opened = await refundOk({ business_id: businessId, payment_id: paymentId, amount_centavos: 600 });
    const db = h.service.dataSource;
    await expect(
      db.query(`UPDATE refunds SET amount_centavos = 1 WHERE id = $1`, [opened.refund_id]),
    ).rejects.toThrow(/cannot change/);
    await expect(
      db.query(`UPDATE payments SET refund_reserved_centavos = 1001 WHERE id = $1`, [paymentId]),
    ).rejects.toThrow(/payments_refunds_within_amount/);
    await expect(
      db.query(
        `INSERT INTO refunds (id, payment_id, business_id, method, amount_centavos, status, created_at, updated_at)
         VALUES ($1, $2, $3, 'pix', 100, 'succeeded', now(), now())`,
        [newPublicId('ref'), paymentId, businessId],
      ),
    ).rejects.toThrow(/starts pending/);
    await settle(aRefundSettlement(opened));
    await expect(
      db.query(`UPDATE refunds SET status = 'failed' WHERE id = $1`, [opened.refund_id]),
    ).rejects.toThrow(/final/);
    await expect(db.query(`DELETE FROM refunds WHERE id = $1`, [opened.refund_id])).rejects.toThrow(/final/);
  });

  test('a settlement delivered twice, or its opposite afterwards, changes nothing more', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 2000);
    const opened = await refundOk({ business_id: businessId, payment_id: paymentId });
    const settled = aRefundSettlement(opened);
    const messageId = newPublicId('msg');
    await Promise.all([
      publishAndAwaitHandling(h.env.config, pixRefundSettled, settled, { messageId }),
      publishAndAwaitHandling(h.env.config, pixRefundSettled, settled, { messageId }),
    ]);
    await settle(settled);
    await settle({ ...settled, outcome: 'failed', failure_reason: 'late word' });
    expect((await refundEvents(opened.refund_id)).map((row) => row.name)).toEqual(['refund.succeeded.v1']);
    expect((await h.readPayment(businessId, paymentId)).payment.refunded_centavos).toBe(2000);
    expect(await readRefund(businessId, opened.refund_id)).toMatchObject({
      ok: true,
      result: { status: 'succeeded', failure_reason: null },
    });
  });

  test('the same create delivered twice opens one refund', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 2000);
    const messageId = newPublicId('msg');
    const send = () =>
      h.request(
        createRefund,
        { business_id: businessId, payment_id: paymentId, amount_centavos: 500 },
        { messageId },
      );
    const first = await send();
    const second = await send();
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    expect(await railRequests(paymentId)).toHaveLength(1);
  });

  test('a poison settlement is parked, not retried; after losing its broker connection settlements apply again', async () => {
    const { messageId, parked } = await h.publishPoisoned(
      'events',
      pixRefundSettled,
      aRefundSettlement({ refund_id: newPublicId('ref'), payment_id: newPublicId('pay') }),
      { outcome: 'maybe' },
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId, reason: expect.stringContaining('outcome') }),
    ]);

    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 2000);
    const opened = await refundOk({ business_id: businessId, payment_id: paymentId });
    h.service.broker.dropConnectionForTesting();
    await h.client.publish(pixRefundSettled, aRefundSettlement(opened));
    await waitFor(
      async () => {
        const reply = await readRefund(businessId, opened.refund_id);
        return reply.ok && reply.result.status === 'succeeded';
      },
      { what: 'the refund settled after reconnecting' },
    );
  });

  test('a page of refunds in a table of a million reads the page index, never the whole table', async () => {
    const businessId = newPublicId('biz');
    const db = h.service.dataSource;
    const prefix = newPublicId('p')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 8);
    await db.query(
      `INSERT INTO payments (id, business_id, business_name, method, status, amount_centavos, fee_centavos, created_at,
                             updated_at, version)
       SELECT 'pay_' || $2 || lpad(g::text, 20, '0'), $1, 'Loja', 'pix', 'pending', 100000000, 0, now(), now(), 1
         FROM generate_series(1, 10000) AS g`,
      [businessId, prefix],
    );
    await db.query(
      `INSERT INTO refunds (id, payment_id, business_id, method, amount_centavos, status, created_at, updated_at)
       SELECT 'ref_' || $2 || lpad(g::text, 20, '0'), 'pay_' || $2 || lpad((g % 10000 + 1)::text, 20, '0'), $1,
              'pix', 100, 'pending', now() - make_interval(secs => g), now()
         FROM generate_series(1, 1000000) AS g`,
      [businessId, prefix],
    );
    await db.query('ANALYZE refunds');
    const paymentId = `pay_${prefix}${'1'.padStart(20, '0')}`;
    const queries: Array<{ sql: string; parameters: unknown[] }> = [];
    const logQuery = jest.spyOn(db.logger, 'logQuery').mockImplementation((sql, parameters) => {
      if (/ORDER BY/.test(sql) && /"refunds" "listed"/.test(sql))
        queries.push({ sql, parameters: parameters ?? [] });
    });
    try {
      const first = await listRefundsOf(db.manager, paymentId, { limit: 10, startingAfter: null });
      expect(first?.rows).toHaveLength(10);
      const next = await listRefundsOf(db.manager, paymentId, {
        limit: 10,
        startingAfter: first!.rows[9]!.id,
      });
      expect(next?.rows).toHaveLength(10);
    } finally {
      logQuery.mockRestore();
    }
    expect(queries).toHaveLength(2);
    for (const { sql, parameters } of queries) {
      const [{ 'QUERY PLAN': plan }] = (await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters)) as [
        { 'QUERY PLAN': unknown },
      ];
      const text = JSON.stringify(plan);
      expect(text).not.toContain('"Seq Scan"');
      expect(text).toMatch(/"Index Name":"refunds_page"/);
    }
  }, 120_000);
});
