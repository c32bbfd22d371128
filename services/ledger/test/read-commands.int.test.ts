import {
  getBalance,
  getStatementSummary,
  listBalanceTransactions,
  newPublicId,
  type BalanceTransaction,
  type ListBalanceTransactions,
} from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent } from '@gateway/testkit';
import { statementMonthBounds } from '../src/domain/statement-month';
import { ledgerServiceForTheseTests } from './support/ledger-service';

describe('ledger.balance.get.v1, ledger.balance-transactions.list.v1 and ledger.statement.get.v1', () => {
  // A delay of a year: nothing settles during the test, so each transaction stays as posted.
  const bed = ledgerServiceForTheseTests('ledger-read', {
    SETTLEMENT_DELAY_PIX: 365 * 86_400,
    SETTLEMENT_DELAY_CRYPTO: 365 * 86_400,
  });

  const list = async (query: ListBalanceTransactions) => {
    const reply = await bed.request(listBalanceTransactions, query);
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  /** Posts a payment (gross, fee) paid at `at`; resolves its payment id. */
  const pay = async (businessId: string, at: string, gross: number, fee: number): Promise<string> => {
    const event = {
      ...aPaymentEvent({
        business_id: businessId,
        status: 'paid',
        amount_centavos: gross,
        fee_centavos: fee,
      }),
      occurred_at: at,
    };
    await bed.confirm(event);
    return event.payment.payment_id;
  };
  const refund = async (
    businessId: string,
    paymentId: string,
    at: string,
    amount: number,
  ): Promise<string> => {
    const event = {
      ...aRefundEvent({
        business_id: businessId,
        payment_id: paymentId,
        status: 'succeeded',
        amount_centavos: amount,
      }),
      occurred_at: at,
    };
    await bed.refundSucceeded(event);
    return event.refund.refund_id;
  };

  test('a business no money moved for has all four balances at zero', async () => {
    const businessId = newPublicId('biz');
    expect(await bed.request(getBalance, { business_id: businessId })).toEqual({
      ok: true,
      result: {
        business_id: businessId,
        available_centavos: 0,
        pending_centavos: 0,
        reserved_centavos: 0,
        blocked_centavos: 0,
        updated_at: new Date(0).toISOString(),
      },
    });
    expect(await list({ business_id: businessId })).toEqual({ data: [], has_more: false });
  });

  test("the balance and its transactions; the sum of net is the balance; another business's never listed", async () => {
    const businessId = newPublicId('biz');
    const other = newPublicId('biz');
    const paymentId = await pay(businessId, '2026-10-05T12:00:00.000Z', 10_000, 100);
    await pay(other, '2026-10-05T12:00:01.000Z', 7_000, 70);
    const refundId = await refund(businessId, paymentId, '2026-10-06T12:00:00.000Z', 2_500);

    const balance = await bed.request(getBalance, { business_id: businessId });
    expect(balance).toEqual({
      ok: true,
      result: expect.objectContaining({ available_centavos: 0, pending_centavos: 7_400 }),
    });
    const page = await list({ business_id: businessId });
    expect(page.has_more).toBe(false);
    expect(page.data).toEqual([
      {
        balance_transaction_id: expect.stringMatching(/^btx_/),
        business_id: businessId,
        type: 'refund',
        source_id: refundId,
        amount_centavos: -2_500,
        fee_centavos: 0,
        net_centavos: -2_500,
        status: 'available',
        available_on: '2026-10-06T12:00:00.000Z',
        created_at: expect.any(String),
        occurred_at: '2026-10-06T12:00:00.000Z',
        description: expect.stringContaining(refundId),
      },
      {
        balance_transaction_id: expect.stringMatching(/^btx_/),
        business_id: businessId,
        type: 'payment',
        source_id: paymentId,
        amount_centavos: 10_000,
        fee_centavos: 100,
        net_centavos: 9_900,
        status: 'pending',
        available_on: '2027-10-05T12:00:00.000Z',
        created_at: expect.any(String),
        occurred_at: '2026-10-05T12:00:00.000Z',
        description: expect.stringContaining(paymentId),
      },
    ]);
    const total = page.data.reduce((sum, bt) => sum + bt.net_centavos, 0);
    if (!balance.ok) throw new Error(JSON.stringify(balance.error));
    const { result } = balance;
    expect(total).toBe(
      result.available_centavos +
        result.pending_centavos +
        result.reserved_centavos +
        result.blocked_centavos,
    );

    const theirs = await list({ business_id: other });
    expect(theirs.data.map((bt) => bt.business_id)).toEqual([other]);
    // Another business's transaction as the cursor is refused, as every list refuses a foreign cursor.
    const foreign = await bed.request(listBalanceTransactions, {
      business_id: businessId,
      starting_after: theirs.data[0]!.balance_transaction_id,
    });
    expect(foreign).toEqual({ ok: false, error: expect.objectContaining({ code: 'INVALID_FIELDS' }) });
  });

  test('pages newest first or oldest first (in the order posted) until has_more is false; filtered by type and creation time', async () => {
    const businessId = newPublicId('biz');
    const days = ['01', '02', '03', '04', '05'];
    const paymentIds: string[] = [];
    for (const day of days) paymentIds.push(await pay(businessId, `2026-08-${day}T10:00:00.000Z`, 1_000, 10));
    const refundId = await refund(businessId, paymentIds[0]!, '2026-08-06T10:00:00.000Z', 500);

    const readAll = async (query: Omit<ListBalanceTransactions, 'starting_after'>) => {
      const pages: BalanceTransaction[][] = [];
      let startingAfter: string | null = null;
      for (;;) {
        const page = await list({ ...query, starting_after: startingAfter });
        pages.push(page.data);
        if (!page.has_more) return pages;
        startingAfter = page.data.at(-1)!.balance_transaction_id;
      }
    };

    const newest = await readAll({ business_id: businessId, limit: 2 });
    expect(newest.map((page) => page.length)).toEqual([2, 2, 2]);
    expect(newest.flat().map((bt) => bt.source_id)).toEqual([refundId, ...[...paymentIds].reverse()]);

    const oldest = await readAll({ business_id: businessId, limit: 4, oldest_first: true });
    expect(oldest.map((page) => page.length)).toEqual([4, 2]);
    expect(oldest.flat().map((bt) => bt.source_id)).toEqual([...paymentIds, refundId]);

    const payments = await readAll({ business_id: businessId, limit: 10, type: 'payment' });
    expect(payments.flat().map((bt) => bt.type)).toEqual([
      'payment',
      'payment',
      'payment',
      'payment',
      'payment',
    ]);
    const refunds = await list({ business_id: businessId, type: 'refund' });
    expect(refunds.data.map((bt) => bt.source_id)).toEqual([refundId]);

    // Created when posted, one after the other: the window from the second's posting to the fourth's.
    const posted = oldest.flat();
    const window = await readAll({
      business_id: businessId,
      limit: 1,
      created_gte: posted[1]!.created_at,
      created_lt: posted[3]!.created_at,
      oldest_first: true,
    });
    expect(window.flat().map((bt) => bt.source_id)).toEqual([paymentIds[1], paymentIds[2]]);
  });

  test("a month's statement: opening is the net created before its first instant, closing adds the month's", async () => {
    const businessId = newPublicId('biz');
    // Paid in September and October, posted now: each is in the statement of the month it was posted in.
    const september = await pay(businessId, '2026-09-30T23:59:59.999Z', 10_000, 100); // net 9 900
    await pay(businessId, '2026-10-01T00:00:00.000Z', 5_000, 50); // net 4 950
    await refund(businessId, september, '2026-10-31T23:59:59.999Z', 1_000); // -1 000
    const rows = (await list({ business_id: businessId, oldest_first: true })).data;
    const months = rows.map((bt) => bt.created_at.slice(0, 7));
    // The month the first was posted in, the one before it and the one after it (UTC).
    const first = statementMonthBounds(months[0]!).from;
    const monthOf = (date: Date) => date.toISOString().slice(0, 7);
    const before = monthOf(new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() - 1, 1)));
    const after = monthOf(new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 1)));
    const netIn = (month: string) =>
      rows.filter((bt, i) => months[i] === month).reduce((sum, bt) => sum + bt.net_centavos, 0);

    const statement = async (month: string) => {
      const reply = await bed.request(getStatementSummary, { business_id: businessId, month });
      if (!reply.ok) throw new Error(JSON.stringify(reply.error));
      return reply.result;
    };
    expect(await statement(months[0]!)).toEqual({
      business_id: businessId,
      month: months[0],
      from: first.toISOString(),
      to: statementMonthBounds(after).from.toISOString(),
      opening_balance_centavos: 0,
      closing_balance_centavos: netIn(months[0]!),
    });
    expect(await statement(before)).toMatchObject({
      opening_balance_centavos: 0,
      closing_balance_centavos: 0,
    });
    expect(await statement(after)).toMatchObject({
      opening_balance_centavos: netIn(months[0]!),
      closing_balance_centavos: 9_900 + 4_950 - 1_000,
    });
    // The month's rows, oldest first, are what the closing adds to the opening.
    const inMonth = await list({
      business_id: businessId,
      created_gte: first.toISOString(),
      created_lt: statementMonthBounds(after).from.toISOString(),
      oldest_first: true,
    });
    expect(inMonth.data.reduce((sum, bt) => sum + bt.net_centavos, 0)).toBe(netIn(months[0]!));
    // Another business's statement knows nothing of these.
    const reply = await bed.request(getStatementSummary, {
      business_id: newPublicId('biz'),
      month: months[0]!,
    });
    expect(reply).toEqual({
      ok: true,
      result: expect.objectContaining({ opening_balance_centavos: 0, closing_balance_centavos: 0 }),
    });
  });
});
