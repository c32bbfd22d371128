import {
  readPaymentChanges,
  updatePayment,
  type PaymentChangeCursor,
  type PaymentChangesPage,
  type PaymentView,
} from '@gateway/contracts';
import { paymentServiceForTheseTests } from './support/harness';

/**
 * The payment change feed (docs/adr/0043-payment-lists-from-the-change-feed.md): a reader that stores every page and
 * starts each pass at the page's settling point sees every write of every payment, whatever order the writing
 * transactions commit in.
 */
describe('payment.changes.v1', () => {
  const h = paymentServiceForTheseTests('payment-change-feed');

  const page = async (after: PaymentChangeCursor, limit = 500): Promise<PaymentChangesPage> => {
    const reply = await h.request(readPaymentChanges, { after, limit });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  /** One pass from `from`: every page until the end; the views read, and where the next pass starts. */
  const pass = async (from: string, limit = 500) => {
    const views: PaymentView[] = [];
    let after: PaymentChangeCursor = { xid: from, payment_id: '' };
    let settledBelow: bigint | null = null;
    for (;;) {
      const next = await page(after, limit);
      views.push(...next.payments);
      const settled = BigInt(next.settled_below);
      settledBelow = settledBelow === null || settled < settledBelow ? settled : settledBelow;
      if (next.last) after = next.last;
      if (!next.has_more) return { views, nextFrom: String(settledBelow), lastSeen: BigInt(after.xid) };
    }
  };
  const xidOf = async (paymentId: string): Promise<bigint> => {
    const [row]: Array<{ xid: string }> = await h.service.dataSource.query(
      'SELECT changed_xid::text AS xid FROM payments WHERE id = $1',
      [paymentId],
    );
    return BigInt(row!.xid);
  };

  test('every payment is read once in write order, a page at a time; a payment written again is read again, newer', async () => {
    const businessId = await h.newBusiness();
    const start = (await page({ xid: '0', payment_id: '' }, 1)).settled_below;
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1)
      made.push((await h.createPayment(businessId, { amount_centavos: 1000 + i })).payment.payment_id);

    const first = await pass(start, 2);
    const mine = first.views.filter((view) => view.payment.business_id === businessId);
    expect(mine.map((view) => view.payment.payment_id)).toEqual(made);
    expect(mine.every((view) => view.pix?.copia_e_cola !== undefined)).toBe(true);

    const changed = await h.request(updatePayment, {
      business_id: businessId,
      payment_id: made[1]!,
      metadata: 'pedido 42',
    });
    expect(changed.ok).toBe(true);
    const second = await pass(first.nextFrom);
    const again = second.views.filter((view) => view.payment.business_id === businessId);
    expect(again.map((view) => view.payment.payment_id)).toEqual([made[1]]);
    expect(again[0]!.payment).toMatchObject({
      metadata: 'pedido 42',
      version: (mine[1]!.payment.version ?? 0) + 1,
    });
  });

  test('a write whose transaction commits after a later one is still read: the next pass starts below it', async () => {
    for (let run = 0; run < 5; run += 1) {
      const businessId = await h.newBusiness();
      const slow = (await h.createPayment(businessId)).payment.payment_id;
      const from = (await pass('0')).nextFrom;
      // The slow writer takes its transaction id first and commits last.
      const runner = h.service.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await runner.query(`UPDATE payments SET metadata = 'lento' WHERE id = $1`, [slow]);
        const quick = await h.request(updatePayment, {
          business_id: businessId,
          payment_id: (await h.createPayment(businessId)).payment.payment_id,
          metadata: 'rápido',
        });
        expect(quick.ok).toBe(true);
        const during = await pass(from);
        expect(during.views.some((view) => view.payment.metadata === 'rápido')).toBe(true);
        expect(
          during.views.some((view) => view.payment.payment_id === slow && view.payment.metadata === 'lento'),
        ).toBe(false);
        await runner.commitTransaction();
        const slowXid = await xidOf(slow);
        // A reader moving on to the last write it saw would pass the slow one by for good...
        expect(slowXid).toBeLessThan(during.lastSeen);
        // ...the settling point stays below it, so the next pass reads it.
        expect(BigInt(during.nextFrom)).toBeLessThanOrEqual(slowXid);
        const after = await pass(during.nextFrom);
        expect(after.views.find((view) => view.payment.payment_id === slow)?.payment.metadata).toBe('lento');
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
    }
  });
});
