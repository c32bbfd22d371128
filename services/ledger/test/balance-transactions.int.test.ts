import {
  getStatementSummary,
  listBalanceTransactions,
  newPublicId,
  type BalanceTransaction,
} from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent, waitFor } from '@gateway/testkit';
import { paymentConfirmedPosting } from '../src/domain/posting-rules';
import { claimAndWrite } from '../src/application/shared/write-posting';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

const DELAY_SECONDS = 3600;

/** The first instant of the month before the one `now` is in (UTC), and that month as `YYYY-MM`. */
function previousMonth(now: Date): { month: string; start: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { month: start.toISOString().slice(0, 7), start };
}

/** The database's clock, to the millisecond (as balance transactions are dated). */
async function databaseNow(bed: LedgerTestBed): Promise<Date> {
  const [row] = await bed.sql<{ now: Date }>(`SELECT date_trunc('milliseconds', clock_timestamp()) AS now`);
  return row!.now;
}

/** A month's statement as the gateway builds its file: the summary, then the month's rows oldest first, page by page. */
async function statementOf(bed: LedgerTestBed, businessId: string, month: string) {
  const summary = await bed.request(getStatementSummary, { business_id: businessId, month });
  if (!summary.ok) throw new Error(JSON.stringify(summary.error));
  const rows: BalanceTransaction[] = [];
  for (;;) {
    const page = await bed.request(listBalanceTransactions, {
      business_id: businessId,
      limit: 2,
      starting_after: rows.at(-1)?.balance_transaction_id ?? null,
      created_gte: summary.result.from,
      created_lt: summary.result.to,
      oldest_first: true,
    });
    if (!page.ok) throw new Error(JSON.stringify(page.error));
    rows.push(...page.result.data);
    if (!page.result.has_more) return { summary: summary.result, rows };
  }
}

describe('balance transactions are dated when posted', () => {
  const bed = ledgerServiceForTheseTests('ledger-dating', {
    SETTLEMENT_DELAY_PIX: DELAY_SECONDS,
    SETTLEMENT_DELAY_CRYPTO: DELAY_SECONDS,
  });

  test("an event of last month posted now lands in this month, its own time kept beside; available_on counts from the event's", async () => {
    const businessId = newPublicId('biz');
    const paidAt = new Date(previousMonth(new Date()).start.getTime() + 3 * 86_400_000);
    const refundedAt = new Date(paidAt.getTime() + 60_000);
    const payment = {
      ...aPaymentEvent({
        business_id: businessId,
        status: 'paid',
        amount_centavos: 10_000,
        fee_centavos: 100,
      }),
      occurred_at: paidAt.toISOString(),
    };
    const refund = {
      ...aRefundEvent({
        business_id: businessId,
        payment_id: payment.payment.payment_id,
        status: 'succeeded',
        amount_centavos: 2_000,
      }),
      occurred_at: refundedAt.toISOString(),
    };

    const before = await databaseNow(bed);
    await bed.confirm(payment);
    await bed.refundSucceeded(refund);
    const after = await databaseNow(bed);

    const page = await bed.request(listBalanceTransactions, { business_id: businessId, oldest_first: true });
    if (!page.ok) throw new Error(JSON.stringify(page.error));
    expect(page.result.data.map((bt) => [bt.type, bt.occurred_at, bt.available_on])).toEqual([
      ['payment', paidAt.toISOString(), new Date(paidAt.getTime() + DELAY_SECONDS * 1000).toISOString()],
      ['refund', refundedAt.toISOString(), refundedAt.toISOString()],
    ]);
    for (const bt of page.result.data) {
      expect(Date.parse(bt.created_at)).toBeGreaterThanOrEqual(before.getTime());
      expect(Date.parse(bt.created_at)).toBeLessThanOrEqual(after.getTime());
    }
  });

  test("a month's statement read twice around a late posting is the same; the posting is in the month it was posted in", async () => {
    const businessId = newPublicId('biz');
    const last = previousMonth(new Date());
    const earlier = await statementOf(bed, businessId, last.month);

    const late = {
      ...aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: 5_000, fee_centavos: 50 }),
      occurred_at: new Date(last.start.getTime() + 86_400_000).toISOString(),
    };
    await bed.confirm(late);

    expect(await statementOf(bed, businessId, last.month)).toEqual(earlier);
    const postedIn = (
      await bed.sql<{ month: string }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM balance_transactions
          WHERE source_id = $1`,
        [late.payment.payment_id],
      )
    )[0]!.month;
    const itsMonth = await statementOf(bed, businessId, postedIn);
    expect(itsMonth.rows.map((bt) => bt.source_id)).toEqual([late.payment.payment_id]);
    expect(itsMonth.summary).toMatchObject({ opening_balance_centavos: 0, closing_balance_centavos: 4_950 });
  });

  test('a balance transaction cannot be written with a date of its own', async () => {
    const businessId = newPublicId('biz');
    await bed.confirm(aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: 3_000 }));
    const [row] = await bed.sql<{ journal_id: string }>(
      `SELECT journal_id FROM balance_transactions WHERE business_id = $1`,
      [businessId],
    );
    const id = newPublicId('btx');
    await bed.sql(
      `INSERT INTO balance_transactions (id, business_id, journal_id, type, source_id, amount_centavos, fee_centavos,
         net_centavos, status, available_on, occurred_at, created_at, description)
       VALUES ($1, $2, $3, 'adjustment', $4, 0, 0, 0, 'available', now(), now(), '2000-01-01T00:00:00Z', '')`,
      [id, businessId, row!.journal_id, newPublicId('adj')],
    );
    const [written] = await bed.sql<{ created_at: Date }>(
      `SELECT created_at FROM balance_transactions WHERE id = $1`,
      [id],
    );
    expect(written!.created_at.getUTCFullYear()).toBeGreaterThan(2000);
  });
});

describe("a month's statement waits for the postings in flight before it is read", () => {
  const bed = ledgerServiceForTheseTests('ledger-closing');

  test('the statement of an ended month answers only once a posting that was being written has committed', async () => {
    const businessId = newPublicId('biz');
    const runner = bed.service.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const posting = paymentConfirmedPosting(
        aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: 4_000, fee_centavos: 40 }),
        { pix: 0, crypto: 0 },
      );
      await claimAndWrite(runner.manager, posting);

      let answered = false;
      const reading = statementOf(bed, businessId, previousMonth(new Date()).month).then((statement) => {
        answered = true;
        return statement;
      });
      // The statement is held at the dating lock the posting holds.
      await waitFor(async () => {
        const [row] = await bed.sql<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
        );
        return Number(row!.waiting) > 0 || undefined;
      });
      expect(answered).toBe(false);
      await runner.commitTransaction();
      expect(await reading).toMatchObject({ rows: [] });
    } finally {
      await runner.release();
    }
  });

  test('the settlement sweep still makes a payment available: its balance transaction goes from pending to available', async () => {
    const businessId = newPublicId('biz');
    const event = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      amount_centavos: 6_000,
      fee_centavos: 60,
    });
    await bed.confirm(event);
    await waitFor(async () => {
      const [row] = await bed.sql<{ status: string }>(
        `SELECT status FROM balance_transactions WHERE source_id = $1`,
        [event.payment.payment_id],
      );
      return row?.status === 'available' || undefined;
    });
    const [balance] = await bed.sql<{ available_centavos: string; pending_centavos: string }>(
      `SELECT available_centavos, pending_centavos FROM balances WHERE business_id = $1`,
      [businessId],
    );
    expect(balance).toEqual({ available_centavos: '5940', pending_centavos: '0' });
  });
});

describe('the database keeps a balance transaction as posted', () => {
  // A delay of a day: a payment's balance transaction stays pending during the test.
  const bed = ledgerServiceForTheseTests('ledger-btx-kept', { SETTLEMENT_DELAY_PIX: 86_400 });

  /** A pending payment's balance transaction, posted through the ledger. */
  async function pendingPaymentRow(): Promise<string> {
    const businessId = newPublicId('biz');
    await bed.confirm(aPaymentEvent({ business_id: businessId, status: 'paid', amount_centavos: 2_000 }));
    const [row] = await bed.sql<{ id: string; status: string }>(
      `SELECT id, status FROM balance_transactions WHERE business_id = $1`,
      [businessId],
    );
    expect(row!.status).toBe('pending');
    return row!.id;
  }

  test.each([
    [
      'its amount',
      `UPDATE balance_transactions SET amount_centavos = amount_centavos + 1, net_centavos = net_centavos + 1 WHERE id = $1`,
    ],
    [
      'its date',
      `UPDATE balance_transactions SET created_at = created_at - interval '40 days' WHERE id = $1`,
    ],
    [
      'its event time',
      `UPDATE balance_transactions SET occurred_at = occurred_at - interval '1 day' WHERE id = $1`,
    ],
    ['its availability date', `UPDATE balance_transactions SET available_on = now() WHERE id = $1`],
    ['its description', `UPDATE balance_transactions SET description = 'x' WHERE id = $1`],
    [
      'its status and anything else',
      `UPDATE balance_transactions SET status = 'available', fee_centavos = 0, net_centavos = amount_centavos WHERE id = $1`,
    ],
    ['the row itself (deleted)', `DELETE FROM balance_transactions WHERE id = $1`],
  ])('a change of %s is refused', async (_what, statement) => {
    const id = await pendingPaymentRow();
    const [before] = await bed.sql(`SELECT * FROM balance_transactions WHERE id = $1`, [id]);
    await expect(bed.sql(statement, [id])).rejects.toThrow(/kept as posted/);
    expect(await bed.sql(`SELECT * FROM balance_transactions WHERE id = $1`, [id])).toEqual([before]);
  });

  test('its status goes from pending to available once, and never back', async () => {
    const id = await pendingPaymentRow();
    await bed.sql(`UPDATE balance_transactions SET status = 'available' WHERE id = $1`, [id]);
    await expect(
      bed.sql(`UPDATE balance_transactions SET status = 'pending' WHERE id = $1`, [id]),
    ).rejects.toThrow(/kept as posted/);
    await expect(
      bed.sql(`UPDATE balance_transactions SET status = 'available' WHERE id = $1`, [id]),
    ).rejects.toThrow(/kept as posted/);
    await expect(bed.sql(`TRUNCATE balance_transactions CASCADE`)).rejects.toThrow(/kept as posted/);
    expect(await bed.sql(`SELECT status FROM balance_transactions WHERE id = $1`, [id])).toEqual([
      { status: 'available' },
    ]);
  });
});
