import {
  disputeClosed,
  disputeCreated,
  getBalance,
  newPublicId,
  type DisputeEventPayload,
  type PaymentEventPayload,
} from '@gateway/contracts';
import { aPaymentEvent, aRefundEvent, publishAndAwaitHandling } from '@gateway/testkit';
import { booksDisagreements } from './support/books';
import { ledgerServiceForTheseTests, type LedgerTestBed } from './support/ledger-service';

const directPaidEvent = (businessId: string, extra: Partial<PaymentEventPayload['payment']> = {}) =>
  aPaymentEvent({
    business_id: businessId,
    status: 'paid',
    amount_centavos: 10_000,
    fee_centavos: 199,
    custody: 'direct',
    ...extra,
  });

async function entriesOfPayment(bed: LedgerTestBed, paymentId: string) {
  return bed.sql<{ cause_key: string; account: string; business_id: string | null; amount_centavos: string }>(
    `SELECT j.cause_key, e.account, e.business_id, e.amount_centavos FROM entries e JOIN journals j ON j.id = e.journal_id
      WHERE j.cause_key IN ($1, $2) ORDER BY e.id`,
    [`direct:${paymentId}`, `settle:${paymentId}`],
  );
}

describe('a payment paid into the business’s own PSP account (the direct model)', () => {
  const bed = ledgerServiceForTheseTests('ledger-direct-payments');

  test('books only the fee the business owes, balanced, once; the business balance offers nothing to pay out', async () => {
    const businessId = newPublicId('biz');
    const event = directPaidEvent(businessId);

    await bed.confirm(event);
    await bed.confirm(event);
    // The same payment reported under another event is the same payment: nothing more.
    await bed.confirm({ ...event, event_id: newPublicId('evt') });

    const entries = await entriesOfPayment(bed, event.payment.payment_id);
    expect(entries).toEqual([
      {
        cause_key: `direct:${event.payment.payment_id}`,
        account: 'fees_receivable',
        business_id: null,
        amount_centavos: '199',
      },
      {
        cause_key: `direct:${event.payment.payment_id}`,
        account: 'fee_revenue',
        business_id: null,
        amount_centavos: '-199',
      },
    ]);
    // Neither the gross (never in the platform's account) nor a net owed to the business.
    const held = await bed.sql<{ n: string }>(
      `SELECT count(*) AS n FROM entries e JOIN journals j ON j.id = e.journal_id
        WHERE j.business_id = $1 AND e.account IN ('cash_psp', 'pending', 'available')`,
      [businessId],
    );
    expect(Number(held[0]!.n)).toBe(0);
    const balance = await bed.request(getBalance, { business_id: businessId });
    if (!balance.ok) throw new Error(JSON.stringify(balance.error));
    expect(balance.result).toMatchObject({
      available_centavos: 0,
      pending_centavos: 0,
      reserved_centavos: 0,
      blocked_centavos: 0,
    });
    const settlements = await bed.sql<{ n: string }>(
      `SELECT count(*) AS n FROM settlements WHERE payment_id = $1`,
      [event.payment.payment_id],
    );
    expect(Number(settlements[0]!.n)).toBe(0);
    expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
  });

  test('a custodial payment of the same business beside it is booked as always: gross held, net owed', async () => {
    const businessId = newPublicId('biz');
    const direct = directPaidEvent(businessId, { fee_centavos: 50 });
    const custodial = directPaidEvent(businessId, {
      custody: 'platform',
      amount_centavos: 3_000,
      fee_centavos: 30,
    });
    await bed.confirm(direct);
    await bed.confirm(custodial);
    const sums = await bed.sql<{ account: string; total: string }>(
      `SELECT e.account, sum(e.amount_centavos) AS total FROM entries e JOIN journals j ON j.id = e.journal_id
        WHERE j.business_id = $1 GROUP BY e.account ORDER BY e.account`,
      [businessId],
    );
    const byAccount = Object.fromEntries(sums.map((row) => [row.account, Number(row.total)]));
    expect(byAccount.cash_psp).toBe(3_000);
    expect(byAccount.fees_receivable).toBe(50);
    expect(byAccount.fee_revenue).toBe(-80);
    expect((byAccount.pending ?? 0) + (byAccount.available ?? 0)).toBe(-2_970);
    expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
  });

  test('its refund, a devolução from the business’s own account, moves nothing of the platform’s; the fee stays owed', async () => {
    const businessId = newPublicId('biz');
    const event = directPaidEvent(businessId, { fee_centavos: 120 });
    await bed.confirm(event);
    const refund = aRefundEvent({
      business_id: businessId,
      payment_id: event.payment.payment_id,
      status: 'succeeded',
      amount_centavos: 4_000,
    });
    await bed.refundSucceeded(refund);
    const journals = await bed.sql<{ cause_key: string }>(
      `SELECT cause_key FROM journals WHERE business_id = $1 ORDER BY id`,
      [businessId],
    );
    expect(journals).toEqual([{ cause_key: `direct:${event.payment.payment_id}` }]);
    const balance = await bed.request(getBalance, { business_id: businessId });
    if (!balance.ok) throw new Error(JSON.stringify(balance.error));
    expect(balance.result).toMatchObject({
      available_centavos: 0,
      pending_centavos: 0,
      reserved_centavos: 0,
    });
    expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
  });

  test('its dispute (a MED at the business’s own account) blocks and debits nothing of the platform’s', async () => {
    const businessId = newPublicId('biz');
    const event = directPaidEvent(businessId, { fee_centavos: 99 });
    await bed.confirm(event);
    const now = new Date().toISOString();
    const disputeId = newPublicId('dsp');
    const disputeEvent = (status: 'open' | 'lost'): DisputeEventPayload => ({
      event_id: newPublicId('evt'),
      business_id: businessId,
      occurred_at: now,
      dispute: {
        dispute_id: disputeId,
        payment_id: event.payment.payment_id,
        business_id: businessId,
        method: 'pix',
        amount_centavos: 10_000,
        status,
        reason: 'MED_FRAUDE',
        created_at: now,
        updated_at: now,
      },
    });

    await publishAndAwaitHandling(bed.env.config, disputeCreated, disputeEvent('open'));
    await publishAndAwaitHandling(bed.env.config, disputeClosed, disputeEvent('lost'));

    const journals = await bed.sql<{ cause_key: string }>(
      `SELECT cause_key FROM journals WHERE business_id = $1 ORDER BY id`,
      [businessId],
    );
    expect(journals).toEqual([{ cause_key: `direct:${event.payment.payment_id}` }]);
    const balance = await bed.request(getBalance, { business_id: businessId });
    if (!balance.ok) throw new Error(JSON.stringify(balance.error));
    expect(balance.result).toMatchObject({ available_centavos: 0, blocked_centavos: 0 });
    expect(await booksDisagreements((text) => bed.sql(text))).toEqual([]);
  });
});
