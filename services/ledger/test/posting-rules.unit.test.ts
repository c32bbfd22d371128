import { aPaymentEvent, aRefundEvent } from '@gateway/testkit';
import {
  isSettlementDue,
  journalSum,
  paymentConfirmedPosting,
  refundSucceededPosting,
  settlementCauseKey,
  settlementPosting,
  type Posting,
} from '../src/domain/posting-rules';
import { holdingAccount } from '../src/domain/accounts';
import { statementMonthBounds } from '../src/domain/statement-month';

const noDelay = { pix: 0, crypto: 0 };
const paid = (method: 'pix' | 'crypto', extra: Record<string, unknown> = {}) =>
  aPaymentEvent({ method, status: 'paid', amount_centavos: 10_000, fee_centavos: 199, ...extra });

/** The sum of net over the posting's balance transaction equals what it changed of the four balances. */
const deltaTotal = (posting: Posting) =>
  posting.deltas.available + posting.deltas.pending + posting.deltas.reserved + posting.deltas.blocked;

describe('posting rules', () => {
  test('a paid PIX payment: cash_psp debited the gross, the business credited the net as pending, the fee earned', () => {
    const event = paid('pix');
    const posting = paymentConfirmedPosting(event, noDelay);
    const businessId = event.payment.business_id;

    expect(posting.causeKey).toBe(event.event_id);
    expect(posting.lines).toEqual([
      { account: 'cash_psp', businessId: null, amountCentavos: 10_000 },
      { account: 'pending', businessId, amountCentavos: -9_801 },
      { account: 'fee_revenue', businessId: null, amountCentavos: -199 },
    ]);
    expect(journalSum(posting.lines)).toBe(0);
    expect(posting.deltas).toEqual({ pending: 9_801, available: 0, reserved: 0, blocked: 0 });
    expect(posting.balanceTransaction).toMatchObject({
      type: 'payment',
      sourceId: event.payment.payment_id,
      amountCentavos: 10_000,
      feeCentavos: 199,
      netCentavos: 9_801,
      status: 'pending',
    });
    expect(deltaTotal(posting)).toBe(posting.balanceTransaction!.netCentavos);
  });

  test("a paid crypto payment debits the token's account at cost; without a token, tokens:unknown", () => {
    const withToken = paymentConfirmedPosting(paid('crypto', { token: 'usdc' }), noDelay);
    const withoutToken = paymentConfirmedPosting(paid('crypto'), noDelay);

    expect(withToken.lines[0]).toEqual({ account: 'tokens:usdc', businessId: null, amountCentavos: 10_000 });
    expect(withToken.settlement!.holdingAccount).toBe('tokens:usdc');
    expect(withoutToken.lines[0]).toEqual({
      account: 'tokens:unknown',
      businessId: null,
      amountCentavos: 10_000,
    });
    expect(holdingAccount('pix', 'usdc')).toBe('cash_psp');
  });

  test('a payment without a fee writes no zero entry', () => {
    const posting = paymentConfirmedPosting(paid('pix', { fee_centavos: 0 }), noDelay);
    expect(posting.lines.map((line) => line.account)).toEqual(['cash_psp', 'pending']);
  });

  test("the settlement is due at paid time plus the method's delay, never before", () => {
    const event = paid('crypto', { token: 'usdt' });
    const paidAt = new Date(event.occurred_at).getTime();
    const posting = paymentConfirmedPosting(event, { pix: 60, crypto: 3600 });

    expect(posting.settlement!.availableOn.getTime()).toBe(paidAt + 3_600_000);
    expect(posting.balanceTransaction!.availableOn).toEqual(posting.settlement!.availableOn);
    expect(isSettlementDue(posting.settlement!, new Date(paidAt + 3_599_999))).toBe(false);
    expect(isSettlementDue(posting.settlement!, new Date(paidAt + 3_600_000))).toBe(true);
    const pix = paymentConfirmedPosting(paid('pix'), { pix: 60, crypto: 3600 });
    expect(
      pix.settlement!.availableOn.getTime() - new Date(pix.balanceTransaction!.occurredAt).getTime(),
    ).toBe(60_000);
  });

  test('settlement moves the net from pending to available, under settle:<payment_id>', () => {
    const { settlement } = paymentConfirmedPosting(paid('pix'), noDelay);
    const posting = settlementPosting({ ...settlement!, remainingCentavos: settlement!.netCentavos })!;

    expect(posting.causeKey).toBe(settlementCauseKey(settlement!.paymentId));
    expect(posting.causeKey).toBe(`settle:${settlement!.paymentId}`);
    expect(posting.deltas).toEqual({ pending: -9_801, available: 9_801, reserved: 0, blocked: 0 });
    expect(journalSum(posting.lines)).toBe(0);
    expect(posting.balanceTransaction).toBeNull();
  });

  test("settlement moves what the payment's refunds left of its net, and writes nothing when nothing is left", () => {
    const { settlement } = paymentConfirmedPosting(paid('pix'), noDelay);
    expect(settlementPosting({ ...settlement!, remainingCentavos: 1_000 })!.deltas).toEqual({
      pending: -1_000,
      available: 1_000,
      reserved: 0,
      blocked: 0,
    });
    expect(settlementPosting({ ...settlement!, remainingCentavos: 0 })).toBeNull();
  });

  test("a refund is taken from its payment's pending first, then available; the money leaves cash_psp; the fee is kept", () => {
    const event = aRefundEvent({ status: 'succeeded', amount_centavos: 5_000 });
    const businessId = event.refund.business_id;
    const posting = refundSucceededPosting(event, 'cash_psp', 2_000);

    expect(posting.lines).toEqual([
      { account: 'available', businessId, amountCentavos: 3_000 },
      { account: 'pending', businessId, amountCentavos: 2_000 },
      { account: 'cash_psp', businessId: null, amountCentavos: -5_000 },
    ]);
    expect(posting.fromPendingOfPayment).toBe(2_000);
    expect(posting.deltas).toEqual({ available: -3_000, pending: -2_000, reserved: 0, blocked: 0 });
    expect(posting.balanceTransaction).toMatchObject({
      type: 'refund',
      sourceId: event.refund.refund_id,
      amountCentavos: -5_000,
      feeCentavos: 0,
      netCentavos: -5_000,
      status: 'available',
    });
    expect(deltaTotal(posting)).toBe(-5_000);
  });

  test('a refund of a payment still pending in full leaves available untouched', () => {
    const event = aRefundEvent({ status: 'succeeded', amount_centavos: 5_000 });
    const posting = refundSucceededPosting(event, 'cash_psp', 9_000);
    expect(posting.deltas).toEqual({ available: 0, pending: -5_000, reserved: 0, blocked: 0 });
    expect(posting.fromPendingOfPayment).toBe(5_000);
  });

  test('a crypto refund returns tokens at cost; a refund larger than its payment pending takes the rest from available, below zero if need be', () => {
    const event = aRefundEvent({ status: 'succeeded', method: 'crypto', amount_centavos: 5_000 });
    const posting = refundSucceededPosting(event, 'tokens:usdc', 500);

    expect(posting.lines.at(-1)).toEqual({
      account: 'tokens:usdc',
      businessId: null,
      amountCentavos: -5_000,
    });
    expect(posting.deltas).toEqual({ available: -4_500, pending: -500, reserved: 0, blocked: 0 });
    expect(journalSum(posting.lines)).toBe(0);
  });

  test("a statement month runs from its first instant (UTC) to the next month's", () => {
    expect(statementMonthBounds('2026-12')).toEqual({
      from: new Date('2026-12-01T00:00:00.000Z'),
      to: new Date('2027-01-01T00:00:00.000Z'),
    });
    expect(statementMonthBounds('2024-02')).toEqual({
      from: new Date('2024-02-01T00:00:00.000Z'),
      to: new Date('2024-03-01T00:00:00.000Z'),
    });
  });
});
