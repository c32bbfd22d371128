import { aPaymentEvent } from '@gateway/testkit';
import { journalSum, paymentConfirmedPosting } from '../src/domain/posting-rules';

const noDelay = { pix: 0, crypto: 0 };

describe('a paid PIX payment with a due date', () => {
  test.each([
    [
      'late, with fine and interest',
      10_245,
      { original: 10_000, fine: 200, interest: 45, reduction: 0, discount: 0 },
    ],
    [
      'early, with a discount',
      9_800,
      { original: 10_000, fine: 0, interest: 0, reduction: 0, discount: 200 },
    ],
  ])('paid %s: the books take what was paid, not the original', (_case, paid, parts) => {
    const event = aPaymentEvent({
      method: 'pix',
      status: 'paid',
      amount_centavos: 10_000,
      amount_paid_centavos: paid,
      amount_parts: parts,
      fee_centavos: 150,
    });
    const posting = paymentConfirmedPosting(event, noDelay);
    const businessId = event.payment.business_id;
    expect(posting.lines).toEqual([
      { account: 'cash_psp', businessId: null, amountCentavos: paid },
      { account: 'pending', businessId, amountCentavos: -(paid - 150) },
      { account: 'fee_revenue', businessId: null, amountCentavos: -150 },
    ]);
    expect(journalSum(posting.lines)).toBe(0);
    expect(posting.balanceTransaction).toMatchObject({
      amountCentavos: paid,
      feeCentavos: 150,
      netCentavos: paid - 150,
    });
    expect(posting.settlement).toMatchObject({ netCentavos: paid - 150 });
  });
});
