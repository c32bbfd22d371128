import {
  createReservation,
  getBalance,
  newPublicId,
  releaseReservation,
  type PaymentMethod,
} from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent, testLogger, waitFor } from '@gateway/testkit';
import { ReservationSweep } from '../src/application/reservation-sweep';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

/** Every journal sums to zero; each business's four balances are its balance transactions' net; its pending is what
 * its waiting settlements have left; its reserved is what its unresolved reservations hold. */
async function expectBooksConsistent(bed: LedgerTestBed): Promise<void> {
  expect(
    await bed.sql(`SELECT journal_id FROM entries GROUP BY journal_id HAVING sum(amount_centavos) <> 0`),
  ).toEqual([]);
  expect(
    await bed.sql(`
      SELECT b.business_id FROM balances b
      LEFT JOIN (SELECT business_id, sum(net_centavos) AS net FROM balance_transactions GROUP BY business_id) t
        USING (business_id)
      LEFT JOIN (SELECT business_id, sum(remaining_centavos) AS rest FROM settlements WHERE settled_at IS NULL
                  GROUP BY business_id) s USING (business_id)
      LEFT JOIN (SELECT business_id, sum(amount_centavos) AS held FROM reservations
                  WHERE status IN ('held', 'confirmed') GROUP BY business_id) r USING (business_id)
      WHERE b.available_centavos + b.pending_centavos + b.reserved_centavos + b.blocked_centavos
              <> COALESCE(t.net, 0)
         OR b.pending_centavos <> COALESCE(s.rest, 0)
         OR b.reserved_centavos <> COALESCE(r.held, 0)`),
  ).toEqual([]);
}

describe('a refund reserves its amount in the books before it is sent, and its outcome spends or returns it', () => {
  // PIX settles at once (available), crypto waits an hour (pending).
  const bed = ledgerServiceForTheseTests('ledger-reservations', { SETTLEMENT_DELAY_CRYPTO: 3600 });

  const balanceOf = async (businessId: string) => {
    const reply = await bed.request(getBalance, { business_id: businessId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  /** A paid payment of `gross` (fee 100) posted; a PIX one waited for until available. */
  const paid = async (businessId: string, method: PaymentMethod, gross: number): Promise<string> => {
    const event = aPaymentEvent({
      business_id: businessId,
      method,
      status: 'paid',
      amount_centavos: gross,
      fee_centavos: 100,
      token: method === 'crypto' ? 'usdc' : null,
    });
    await bed.confirm(event);
    const paymentId = event.payment.payment_id;
    if (method === 'pix')
      await waitFor(
        async () =>
          (
            await bed.sql(`SELECT 1 FROM settlements WHERE payment_id = $1 AND settled_at IS NOT NULL`, [
              paymentId,
            ])
          ).length > 0,
        { what: 'PIX payment settled' },
      );
    return paymentId;
  };

  const reserve = (reservationId: string, businessId: string, paymentId: string, amount: number) =>
    bed.request(createReservation, {
      reservation_id: reservationId,
      business_id: businessId,
      payment_id: paymentId,
      amount_centavos: amount,
    });

  const remainderOf = async (paymentId: string): Promise<number> => {
    const [row] = await bed.sql<{ r: string }>(
      `SELECT remaining_centavos AS r FROM settlements WHERE payment_id = $1`,
      [paymentId],
    );
    return Number(row!.r);
  };

  const journals = async (causeKey: string): Promise<number> =>
    (await bed.sql(`SELECT 1 FROM journals WHERE cause_key = $1`, [causeKey])).length;

  const refundEvent = (
    businessId: string,
    paymentId: string,
    refundId: string,
    amount: number,
    method: PaymentMethod,
  ) =>
    aRefundEvent({
      refund_id: refundId,
      business_id: businessId,
      payment_id: paymentId,
      method,
      amount_centavos: amount,
    });

  test("reserves from the payment's own pending first, then available, then other pending, and remembers each part", async () => {
    const businessId = newPublicId('biz');
    const available = await paid(businessId, 'pix', 5100); // 5000 available
    const other = await paid(businessId, 'crypto', 3100); // 3000 pending
    const own = await paid(businessId, 'crypto', 2100); // 2000 pending
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 5000, pending_centavos: 5000 });

    const refundId = newPublicId('ref');
    expect(await reserve(refundId, businessId, own, 8000)).toEqual({
      ok: true,
      result: { reservation_id: refundId, outcome: 'reserved' },
    });
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 0,
      pending_centavos: 2000,
      reserved_centavos: 8000,
    });
    const [reservation] = await bed.sql(`SELECT * FROM reservations WHERE id = $1`, [refundId]);
    expect(reservation).toMatchObject({
      status: 'held',
      from_available_centavos: '5000',
      from_pending: [
        { payment_id: own, centavos: 2000 },
        { payment_id: other, centavos: 1000 },
      ],
    });
    expect(await remainderOf(own)).toBe(0);
    expect(await remainderOf(other)).toBe(2000);
    expect(available).toMatch(/^pay_/);
    await expectBooksConsistent(bed);

    // Released: each part goes back where it came from.
    expect(await bed.request(releaseReservation, { reservation_id: refundId })).toEqual({
      ok: true,
      result: { released: true },
    });
    expect(await bed.request(releaseReservation, { reservation_id: refundId })).toEqual({
      ok: true,
      result: { released: false },
    });
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 5000,
      pending_centavos: 5000,
      reserved_centavos: 0,
    });
    expect(await remainderOf(own)).toBe(2000);
    expect(await remainderOf(other)).toBe(3000);
    expect(await journals(`release:${refundId}`)).toBe(1);
    await expectBooksConsistent(bed);
  });

  test('a second reservation under the same id moves nothing; over available + pending is INSUFFICIENT_BALANCE', async () => {
    const businessId = newPublicId('biz');
    const paymentId = await paid(businessId, 'pix', 10_000); // 9900 available
    const refundId = newPublicId('ref');
    const [first, second] = await Promise.all([
      reserve(refundId, businessId, paymentId, 4000),
      reserve(refundId, businessId, paymentId, 4000),
    ]);
    expect(first).toEqual({ ok: true, result: { reservation_id: refundId, outcome: 'reserved' } });
    expect(second).toEqual(first);
    expect(await journals(`reserve:${refundId}`)).toBe(1);
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 5900, reserved_centavos: 4000 });

    // The fee is not returned: the whole gross is more than the business holds.
    expect(await reserve(newPublicId('ref'), businessId, paymentId, 10_000)).toMatchObject({
      ok: false,
      error: { code: 'INSUFFICIENT_BALANCE' },
    });
    expect(await reserve(newPublicId('ref'), businessId, paymentId, 5901)).toMatchObject({
      ok: false,
      error: { code: 'INSUFFICIENT_BALANCE' },
    });
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 5900, reserved_centavos: 4000 });
    await expectBooksConsistent(bed);
  });

  test('the same reservation delivered twice at once when the balance covers it once: both answered reserved (many tries)', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const businessId = newPublicId('biz');
      const paymentId = await paid(businessId, 'pix', 10_000); // 9900 available
      const refundId = newPublicId('ref');
      const replies = await Promise.all([1, 2, 3].map(() => reserve(refundId, businessId, paymentId, 9900)));

      expect(replies).toEqual(
        [1, 2, 3].map(() => ({ ok: true, result: { reservation_id: refundId, outcome: 'reserved' } })),
      );
      expect(await journals(`reserve:${refundId}`)).toBe(1);
      expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 0, reserved_centavos: 9900 });
    }
    await expectBooksConsistent(bed);
  });

  test('a payment the ledger has not posted yet is answered payment_not_posted, reserving nothing', async () => {
    const businessId = newPublicId('biz');
    const refundId = newPublicId('ref');
    expect(await reserve(refundId, businessId, newPublicId('pay'), 100)).toEqual({
      ok: true,
      result: { reservation_id: refundId, outcome: 'payment_not_posted' },
    });
    expect(await bed.sql(`SELECT 1 FROM reservations WHERE id = $1`, [refundId])).toEqual([]);
  });

  test('refund.succeeded posts from reserved with its balance transaction, once however delivered', async () => {
    const businessId = newPublicId('biz');
    const paymentId = await paid(businessId, 'crypto', 10_100); // 10000 pending
    const refundId = newPublicId('ref');
    await reserve(refundId, businessId, paymentId, 6000);
    const event = refundEvent(businessId, paymentId, refundId, 6000, 'crypto');
    await bed.refundSucceeded({ ...event, refund: { ...event.refund, status: 'succeeded' } });
    await bed.refundSucceeded({ ...event, refund: { ...event.refund, status: 'succeeded' } });
    await bed.refundSucceeded({ ...event, event_id: newPublicId('evt') });

    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 0,
      pending_centavos: 4000,
      reserved_centavos: 0,
    });
    expect(await bed.sql(`SELECT status FROM reservations WHERE id = $1`, [refundId])).toEqual([
      { status: 'spent' },
    ]);
    const lines = await bed.sql(
      `SELECT type, amount_centavos, net_centavos FROM balance_transactions WHERE source_id = $1`,
      [refundId],
    );
    expect(lines).toEqual([{ type: 'refund', amount_centavos: '-6000', net_centavos: '-6000' }]);
    const entries = await bed.sql(
      `SELECT e.account, e.amount_centavos FROM entries e JOIN journals j ON j.id = e.journal_id
        WHERE j.cause_key = $1 ORDER BY e.account`,
      [event.event_id],
    );
    expect(entries).toEqual([
      { account: 'reserved', amount_centavos: '6000' },
      { account: 'tokens:usdc', amount_centavos: '-6000' },
    ]);
    // A failure told afterwards (out of order, a defect) moves nothing: the reservation is spent.
    await bed.refundFailed({ ...event, event_id: newPublicId('evt') });
    expect(await journals(`release:${refundId}`)).toBe(0);
    await expectBooksConsistent(bed);
  });

  test('refund.failed returns the reservation where it came from, with no balance transaction, once', async () => {
    const businessId = newPublicId('biz');
    await paid(businessId, 'pix', 1100); // 1000 available
    const paymentId = await paid(businessId, 'crypto', 2100); // 2000 pending
    const refundId = newPublicId('ref');
    await reserve(refundId, businessId, paymentId, 2500);
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 500,
      pending_centavos: 0,
      reserved_centavos: 2500,
    });
    const event = refundEvent(businessId, paymentId, refundId, 2500, 'crypto');
    await bed.refundFailed(event);
    await bed.refundFailed(event);
    await bed.refundFailed({ ...event, event_id: newPublicId('evt') });

    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 1000,
      pending_centavos: 2000,
      reserved_centavos: 0,
    });
    expect(await remainderOf(paymentId)).toBe(2000);
    expect(await journals(`release:${refundId}`)).toBe(1);
    expect(await bed.sql(`SELECT 1 FROM balance_transactions WHERE source_id = $1`, [refundId])).toEqual([]);
    await expectBooksConsistent(bed);
  });

  test('a pending part whose payment settled meanwhile goes back to available', async () => {
    const businessId = newPublicId('biz');
    const paymentId = await paid(businessId, 'crypto', 3100); // 3000 pending
    const refundId = newPublicId('ref');
    await reserve(refundId, businessId, paymentId, 1000);
    // The settlement sweep moves what is left (2000), the reserved 1000 stays reserved.
    await bed.sql(`UPDATE settlements SET available_on = now() - interval '1 second' WHERE payment_id = $1`, [
      paymentId,
    ]);
    await waitFor(async () => (await balanceOf(businessId)).available_centavos === 2000 || undefined, {
      what: 'settled',
    });
    expect(await balanceOf(businessId)).toMatchObject({ pending_centavos: 0, reserved_centavos: 1000 });
    await bed.request(releaseReservation, { reservation_id: refundId });
    expect(await balanceOf(businessId)).toMatchObject({
      available_centavos: 3000,
      pending_centavos: 0,
      reserved_centavos: 0,
    });
    await expectBooksConsistent(bed);
  });

  test('the sweep releases a reservation whose refund was never opened, and confirms one whose refund exists', async () => {
    const businessId = newPublicId('biz');
    const paymentId = await paid(businessId, 'pix', 5100); // 5000 available
    const orphan = newPublicId('ref');
    const opened = newPublicId('ref');
    const young = newPublicId('ref');
    await reserve(orphan, businessId, paymentId, 1000);
    await reserve(opened, businessId, paymentId, 1500);
    const asked: string[] = [];
    let now = new Date();
    const sweep = new ReservationSweep(
      bed.service.dataSource,
      async ({ refundId }) => {
        asked.push(refundId);
        if (refundId === young) throw new Error('the payment service does not answer');
        // Other tests' reservations (their refunds are not this test's to give up) are confirmed.
        return refundId !== orphan;
      },
      {
        confirmAfterMs: 600_000,
        intervalMs: 3_600_000,
        logger: testLogger('reservation-sweep'),
        now: () => now,
      },
    );
    // Nothing is old enough yet.
    expect(await sweep.runOnce()).toBe(0);
    now = new Date(Date.now() + 601_000);
    await reserve(young, businessId, paymentId, 500);
    // Old enough by the moved clock too, but the payment service does not answer about it: it stays held.
    expect(await sweep.runOnce()).toBeGreaterThanOrEqual(2);
    expect(asked).toEqual(expect.arrayContaining([opened, orphan, young]));
    const statuses = await bed.sql<{ id: string; status: string }>(
      `SELECT id, status FROM reservations WHERE id = ANY($1) ORDER BY id`,
      [[orphan, opened, young]],
    );
    expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toEqual({
      [orphan]: 'released',
      [opened]: 'confirmed',
      [young]: 'held',
    });
    expect(await balanceOf(businessId)).toMatchObject({ available_centavos: 3000, reserved_centavos: 2000 });
    // A confirmed reservation is not the payment service's to release; its refund's outcome resolves it.
    expect(await bed.request(releaseReservation, { reservation_id: opened })).toEqual({
      ok: true,
      result: { released: false },
    });
    await expectBooksConsistent(bed);
  });

  test('racing reservations of different payments of one business never reserve more than it holds (many tries)', async () => {
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const businessId = newPublicId('biz');
      const payments = [
        await paid(businessId, 'pix', 2100),
        await paid(businessId, 'pix', 2100),
        await paid(businessId, 'crypto', 2100),
        await paid(businessId, 'crypto', 2100),
      ]; // 4000 available, 4000 pending
      const replies = await Promise.all(
        payments.flatMap((paymentId) => [
          reserve(newPublicId('ref'), businessId, paymentId, 1900),
          reserve(newPublicId('ref'), businessId, paymentId, 1900),
        ]),
      );
      const reserved = replies.filter((reply) => reply.ok).length;
      expect(reserved).toBe(4); // 4 x 1900 = 7600 <= 8000; a fifth would be 9500
      expect(replies.filter((reply) => !reply.ok)).toEqual(
        Array.from({ length: 4 }, () =>
          expect.objectContaining({ error: expect.objectContaining({ code: 'INSUFFICIENT_BALANCE' }) }),
        ),
      );
      expect(await balanceOf(businessId)).toMatchObject({ reserved_centavos: 7600 });
      const balance = await balanceOf(businessId);
      expect(balance.available_centavos + balance.pending_centavos).toBe(400);
    }
    await expectBooksConsistent(bed);
  });
});
