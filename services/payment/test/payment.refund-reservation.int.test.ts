import {
  checkRefundReservation,
  pixChargePaid,
  createRefund,
  newPublicId,
  type CreateRefund,
  type RefundRecord,
} from '@gateway/contracts';
import { connectionsIdleInTransaction, waitFor } from '@gateway/testkit';
import { paymentServiceForTheseTests } from './support/harness';
import { aPixChargePaid } from './support/rail-events';

describe('a refund reserves its money at the ledger before it is opened', () => {
  const h = paymentServiceForTheseTests('payment-refund-reservation', { REFUND_POSTING_WAIT_MS: '1500' });

  const refund = (command: CreateRefund, messageId?: string) =>
    h.request(createRefund, command, messageId ? { messageId } : {});

  const railRequests = async (paymentId: string): Promise<unknown[]> =>
    h.service.dataSource.query(
      `SELECT 1 FROM outbox WHERE name LIKE '%.refund.requested.v1' AND envelope->'payload'->>'payment_id' = $1`,
      [paymentId],
    );

  const refundsOf = async (paymentId: string): Promise<unknown[]> =>
    h.service.dataSource.query(`SELECT id FROM refunds WHERE payment_id = $1`, [paymentId]);

  test('the ledger refusing INSUFFICIENT_BALANCE refuses the refund: nothing opened, nothing asked of the rail', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    h.ledger.insufficient = true;
    try {
      const reply = await refund({ business_id: businessId, payment_id: paymentId });
      expect(reply).toMatchObject({ ok: false, error: { code: 'INSUFFICIENT_BALANCE' } });
    } finally {
      h.ledger.insufficient = false;
    }
    expect(h.ledger.asked.filter((asked) => asked.payment_id === paymentId)).toEqual([
      expect.objectContaining({ business_id: businessId, amount_centavos: 5000 }),
    ]);
    expect(await refundsOf(paymentId)).toEqual([]);
    expect(await railRequests(paymentId)).toEqual([]);
  });

  test("a refund of a payment paid into the business's own PSP account reserves nothing at the ledger and is opened", async () => {
    const businessId = await h.newBusiness();
    const created = await h.createPayment(businessId, { amount_centavos: 5000 });
    const paymentId = created.payment.payment_id;
    // As the PIX adapter answers a charge opened at the business's own account (that flow: the adapter's tests); a
    // paid payment's custody is frozen with it.
    await h.service.dataSource.query(`UPDATE payments SET custody = 'direct' WHERE id = $1`, [paymentId]);
    await h.publishEvent(pixChargePaid, aPixChargePaid(created.payment));
    await h.waitForPaymentStatus(businessId, paymentId, 'paid');
    const [confirmed] = (await h.service.dataSource.query(
      `SELECT envelope->'payload'->'payment'->>'custody' AS custody FROM outbox
        WHERE name = 'payment.confirmed.v1' AND envelope->'payload'->'payment'->>'payment_id' = $1`,
      [paymentId],
    )) as Array<{ custody: string | null }>;
    expect(confirmed?.custody).toBe('direct');
    h.ledger.insufficient = true;
    try {
      const reply = await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 1200 });
      expect(reply).toMatchObject({ ok: true, result: { status: 'pending', amount_centavos: 1200 } });
    } finally {
      h.ledger.insufficient = false;
    }
    expect(h.ledger.asked.filter((asked) => asked.payment_id === paymentId)).toEqual([]);
    expect(await railRequests(paymentId)).toHaveLength(1);
  });

  test("a refund the payment's own rules refuse asks the ledger nothing", async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const reply = await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 5001 });
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });
    expect(h.ledger.asked.filter((asked) => asked.payment_id === paymentId)).toEqual([]);
  });

  test('the refund is opened under the id it reserved, once, however often its command is delivered', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const messageId = newPublicId('msg');
    const command = { business_id: businessId, payment_id: paymentId, amount_centavos: 700 };
    const first = await refund(command, messageId);
    const second = await refund(command, messageId);
    if (!first.ok) throw new Error(JSON.stringify(first.error));
    expect(second).toEqual(first);
    const reservation = h.ledger.reservations.get(first.result.refund_id);
    expect(reservation).toMatchObject({ payment_id: paymentId, amount_centavos: 700, outcome: 'reserved' });
    expect(await railRequests(paymentId)).toHaveLength(1);
  });

  test('a refund asked for before the ledger posted its payment waits for it, then opens', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    h.ledger.notPostedUntil = Date.now() + 400;
    const reply = await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 100 });
    expect(reply).toMatchObject({ ok: true, result: { status: 'pending', amount_centavos: 100 } });
    expect(h.ledger.asked.filter((asked) => asked.payment_id === paymentId).length).toBeGreaterThan(1);
  });

  test('a payment the ledger does not post within the wait answers SERVICE_UNAVAILABLE and opens nothing', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    h.ledger.notPostedUntil = Date.now() + 60_000;
    try {
      const started = Date.now();
      const reply = await refund({ business_id: businessId, payment_id: paymentId });
      expect(reply).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      // Bounded by REFUND_POSTING_WAIT_MS (1.5 s here).
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      h.ledger.notPostedUntil = 0;
    }
    expect(await refundsOf(paymentId)).toEqual([]);
    // Its id is given up: the client's next try (same Idempotency-Key) reserves under a new one.
    const ids = [
      ...new Set(h.ledger.asked.filter((a) => a.payment_id === paymentId).map((a) => a.reservation_id)),
    ];
    expect(ids).toHaveLength(1);
    expect(
      await h.service.dataSource.query(
        `SELECT given_up_at IS NOT NULL AS given_up FROM refund_requests WHERE refund_id = $1`,
        ids,
      ),
    ).toEqual([{ given_up: true }]);
  });

  test('racing full refunds are decided under the payment lock before reserving: only the one opened reserves (many tries)', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const businessId = await h.newBusiness();
      const paymentId = await h.paidPixPayment(businessId, 3000);
      const replies = await Promise.all(
        Array.from({ length: 4 }, () => refund({ business_id: businessId, payment_id: paymentId })),
      );
      const opened = replies.filter((reply) => reply.ok) as Array<{ ok: true; result: RefundRecord }>;
      expect(opened).toHaveLength(1);
      expect(replies.filter((reply) => !reply.ok)).toEqual(
        Array.from({ length: 3 }, () =>
          expect.objectContaining({ error: expect.objectContaining({ code: 'INVALID_AMOUNT' }) }),
        ),
      );
      // The losers saw the winner's share taken and asked the ledger nothing: no reservation to give back.
      expect(
        h.ledger.asked.filter((asked) => asked.payment_id === paymentId).map((asked) => asked.reservation_id),
      ).toEqual([opened[0]!.result.refund_id]);
    }
  });

  test("the ledger's check: an opened refund exists; an id never opened is given up and can no longer be", async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const opened = await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 100 });
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    expect(
      await h.request(checkRefundReservation, { refund_id: opened.result.refund_id, payment_id: paymentId }),
    ).toEqual({ ok: true, result: { refund_exists: true } });

    // A command whose intent was recorded and reserved but never opened (its process stopped in between), then
    // checked: still `reserving`, it is given up, so it can never be opened afterwards.
    const messageId = newPublicId('msg');
    const [row] = await h.service.dataSource.query(
      `INSERT INTO refund_requests (refund_id, message_id, payment_id, amount_centavos, status)
       VALUES ($1, $2, $3, 100, 'reserving') RETURNING refund_id`,
      [newPublicId('ref'), messageId, paymentId],
    );
    const abandoned = (row as { refund_id: string }).refund_id;
    expect(await h.request(checkRefundReservation, { refund_id: abandoned, payment_id: paymentId })).toEqual({
      ok: true,
      result: { refund_exists: false },
    });
    // The same command delivered again gets a new id: the given-up one is never opened.
    const again = await refund(
      { business_id: businessId, payment_id: paymentId, amount_centavos: 100 },
      messageId,
    );
    if (!again.ok) throw new Error(JSON.stringify(again.error));
    expect(again.result.refund_id).not.toBe(abandoned);
    expect(await h.service.dataSource.query(`SELECT 1 FROM refunds WHERE id = $1`, [abandoned])).toEqual([]);
  });

  test('a refund whose transaction fails once the ledger reserved gives its id up and the reservation back', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    // The refund's insert fails once, after the ledger reserved (a sequence counts across rollbacks).
    await h.service.dataSource.query(`CREATE SEQUENCE refund_insert_failures`);
    await h.service.dataSource.query(`
      CREATE FUNCTION fail_first_refund_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.payment_id = '${paymentId}' AND nextval('refund_insert_failures') = 1 THEN
          RAISE EXCEPTION 'the refund insert fails this once';
        END IF;
        RETURN NEW;
      END $$`);
    await h.service.dataSource.query(`
      CREATE TRIGGER fail_first_refund_insert BEFORE INSERT ON refunds
      FOR EACH ROW EXECUTE FUNCTION fail_first_refund_insert()`);
    try {
      await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 1000 });
      const first = await waitFor(() => h.ledger.asked.find((asked) => asked.payment_id === paymentId), {
        what: 'the first reservation',
      });
      await waitFor(() => h.ledger.releases.includes(first.reservation_id) || undefined, {
        what: 'the first reservation released',
      });
      expect(
        await h.service.dataSource.query(
          `SELECT given_up_at IS NOT NULL AS given_up FROM refund_requests WHERE refund_id = $1`,
          [first.reservation_id],
        ),
      ).toEqual([{ given_up: true }]);
      expect(
        await h.service.dataSource.query(`SELECT 1 FROM refunds WHERE id = $1`, [first.reservation_id]),
      ).toEqual([]);
    } finally {
      await h.service.dataSource.query(`DROP TRIGGER fail_first_refund_insert ON refunds`);
      await h.service.dataSource.query(`DROP FUNCTION fail_first_refund_insert()`);
      await h.service.dataSource.query(`DROP SEQUENCE refund_insert_failures`);
    }
    // Every refund opened for the payment holds a reservation never released.
    const opened = (await refundsOf(paymentId)) as Array<{ id: string }>;
    for (const { id } of opened) expect(h.ledger.releases).not.toContain(id);
  });

  test('while refunds wait on a slow ledger, no connection sits idle in a transaction and the payment stays readable', async () => {
    const businessId = await h.newBusiness();
    const payments = await Promise.all(Array.from({ length: 3 }, () => h.paidPixPayment(businessId, 5000)));
    const asked = h.ledger.asked.length;
    h.ledger.delayMs = 1500;
    try {
      const refunds = payments.map((paymentId) =>
        h.request(
          createRefund,
          { business_id: businessId, payment_id: paymentId, amount_centavos: 1000 },
          {
            timeoutMs: 15_000,
          },
        ),
      );
      await waitFor(() => h.ledger.asked.length - asked >= 1 || undefined, {
        what: 'a refund waiting on the ledger',
      });
      let answered = false;
      const allAnswered = Promise.all(refunds).finally(() => (answered = true));
      // A transaction held across the ledger's call sits idle for its whole delay; one caught between two statements
      // of a short transaction, which a busy machine can stretch, is not that.
      const idle: number[] = [];
      const locked: number[] = [];
      while (!answered) {
        idle.push(
          await connectionsIdleInTransaction(h.service.dataSource, h.env.database.name, {
            forAtLeastMs: 200,
          }),
        );
        // The payment's row is not locked meanwhile: another transaction takes it at once.
        const started = Date.now();
        await h.service.dataSource.transaction(async (manager) => {
          await manager.query(`SET LOCAL lock_timeout = '1s'`);
          await manager.query(`SELECT 1 FROM payments WHERE id = $1 FOR UPDATE`, [payments[0]]);
        });
        locked.push(Date.now() - started);
      }
      expect(idle.length).toBeGreaterThanOrEqual(3);
      expect(idle.filter((n) => n > 0)).toEqual([]);
      expect(locked.filter((ms) => ms >= 1000)).toEqual([]);
      for (const reply of await allAnswered)
        expect(reply).toMatchObject({ ok: true, result: { status: 'pending', amount_centavos: 1000 } });
    } finally {
      h.ledger.delayMs = 0;
    }
  });

  test('a refund still being reserved counts against the payment: a racing one over the rest is INVALID_AMOUNT, asking the ledger nothing', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 3000);
    h.ledger.delayMs = 1000;
    try {
      const first = refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 2000 });
      await waitFor(() => h.ledger.asked.some((asked) => asked.payment_id === paymentId) || undefined, {
        what: 'the first refund waiting on the ledger',
      });
      const [row] = await h.service.dataSource.query(
        `SELECT status, amount_centavos::int AS amount FROM refund_requests WHERE payment_id = $1`,
        [paymentId],
      );
      expect(row).toEqual({ status: 'reserving', amount: 2000 });
      const second = await refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 1001 });
      expect(second).toMatchObject({ ok: false, error: { code: 'INVALID_AMOUNT' } });
      const third = refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 1000 });
      const replies = [await first, await third];
      expect(replies).toEqual([
        expect.objectContaining({ ok: true, result: expect.objectContaining({ amount_centavos: 2000 }) }),
        expect.objectContaining({ ok: true, result: expect.objectContaining({ amount_centavos: 1000 }) }),
      ]);
    } finally {
      h.ledger.delayMs = 0;
    }
    expect(
      h.ledger.asked.filter((asked) => asked.payment_id === paymentId).map((a) => a.amount_centavos),
    ).toEqual([2000, 1000]);
    expect(
      await h.service.dataSource.query(
        `SELECT status FROM refund_requests WHERE payment_id = $1 ORDER BY status`,
        [paymentId],
      ),
    ).toEqual([{ status: 'opened' }, { status: 'opened' }]);
  });

  test('the ledger refusing gives the intent up: it no longer counts against the payment', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    h.ledger.insufficient = true;
    try {
      const refused = await refund({ business_id: businessId, payment_id: paymentId });
      expect(refused).toMatchObject({ ok: false, error: { code: 'INSUFFICIENT_BALANCE' } });
    } finally {
      h.ledger.insufficient = false;
    }
    expect(
      await h.service.dataSource.query(`SELECT status FROM refund_requests WHERE payment_id = $1`, [
        paymentId,
      ]),
    ).toEqual([{ status: 'given_up' }]);
    expect(await refund({ business_id: businessId, payment_id: paymentId })).toMatchObject({
      ok: true,
      result: { amount_centavos: 5000 },
    });
  });

  test("the ledger's check of an intent still being reserved gives it up: it is never opened and its money goes back", async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    h.ledger.delayMs = 1000;
    let reply;
    try {
      const asked = refund({ business_id: businessId, payment_id: paymentId, amount_centavos: 700 });
      const reservation = await waitFor(() => h.ledger.asked.find((a) => a.payment_id === paymentId), {
        what: 'the refund waiting on the ledger',
      });
      expect(
        await h.request(checkRefundReservation, {
          refund_id: reservation.reservation_id,
          payment_id: paymentId,
        }),
      ).toEqual({ ok: true, result: { refund_exists: false } });
      reply = await asked;
      expect(h.ledger.releases).toContain(reservation.reservation_id);
    } finally {
      h.ledger.delayMs = 0;
    }
    expect(reply).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(await refundsOf(paymentId)).toEqual([]);
    expect(await railRequests(paymentId)).toEqual([]);
  });

  test('an intent left reserving by a stopped process stops counting once stale; a fresh one still counts', async () => {
    const businessId = await h.newBusiness();
    const paymentId = await h.paidPixPayment(businessId, 5000);
    const [row] = await h.service.dataSource.query(
      `INSERT INTO refund_requests (refund_id, message_id, payment_id, amount_centavos, status)
       VALUES ($1, $2, $3, 5000, 'reserving') RETURNING refund_id`,
      [newPublicId('ref'), newPublicId('msg'), paymentId],
    );
    const stopped = (row as { refund_id: string }).refund_id;
    expect(await refund({ business_id: businessId, payment_id: paymentId })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_AMOUNT' },
    });
    // Older than the ledger's call can take: the next refund of the payment gives it up.
    await h.service.dataSource.query(
      `UPDATE refund_requests SET created_at = now() - interval '1 hour' WHERE refund_id = $1`,
      [stopped],
    );
    expect(await refund({ business_id: businessId, payment_id: paymentId })).toMatchObject({
      ok: true,
      result: { amount_centavos: 5000 },
    });
    expect(
      await h.service.dataSource.query(`SELECT status FROM refund_requests WHERE refund_id = $1`, [stopped]),
    ).toEqual([{ status: 'given_up' }]);
  });
});
