import { decideClosure, decideFunds, type FundsReceived } from '../src/domain/funds';

const parts = { original: 45_000, fine: 900, interest: 45, reduction: 0, discount: 0 };
const pix = (received: number, against: FundsReceived['against']): FundsReceived => ({
  paymentId: 'pay_x',
  rail: 'pix',
  reference: 'E1',
  received: BigInt(received),
  against,
});
const open = { isOpen: true, amountCentavos: 45_000, dueDate: true };

describe('money into a due-date payment', () => {
  it('is paid, with no excess, by the Pix its rail judged, whatever it comes to against the original', () => {
    expect(decideFunds(pix(45_945, { kind: 'due-charge', parts }), open)).toEqual({
      kind: 'paid',
      excess: 0n,
      parts,
    });
    const early = { ...parts, fine: 0, interest: 0, discount: 2000 };
    expect(decideFunds(pix(43_000, { kind: 'due-charge', parts: early }), open)).toEqual({
      kind: 'paid',
      excess: 0n,
      parts: early,
    });
  });

  it('is not paid by a Pix its rail refused, nor by parts that do not hold, nor by a Pix reported without them', () => {
    // Held as it is: excess when the original or more (never an underpayment), partial when less.
    const excess = { kind: 'not-accepted', as: 'excess' };
    expect(decideFunds(pix(45_945, { kind: 'due-charge', parts: null }), open)).toEqual(excess);
    expect(decideFunds(pix(45_000, { kind: 'due-charge', parts: null }), open)).toEqual(excess);
    expect(decideFunds(pix(44_000, { kind: 'due-charge', parts: null }), open)).toEqual({
      kind: 'not-accepted',
      as: 'partial',
    });
    expect(decideFunds(pix(45_946, { kind: 'due-charge', parts }), open)).toEqual(excess);
    expect(
      decideFunds(pix(46_945, { kind: 'due-charge', parts: { ...parts, original: 46_000 } }), open),
    ).toEqual(excess);
    // A closure lists what did not pay it without a judgement: never a payment, even for more than the original.
    expect(decideFunds(pix(90_000, { kind: 'payment-amount' }), open)).toEqual(excess);
  });

  it('fails AMOUNT_NOT_ACCEPTED when its rail closed it on a Pix it did not accept, whatever the amount', () => {
    expect(decideClosure('amount-not-accepted', false, 'x')).toMatchObject({
      status: 'failed',
      failureCode: 'AMOUNT_NOT_ACCEPTED',
    });
    expect(decideClosure('amount-not-accepted', true, null).failureCode).toBe('AMOUNT_NOT_ACCEPTED');
  });

  it('is late after the payment ended, as any money', () => {
    expect(decideFunds(pix(45_945, { kind: 'due-charge', parts }), { ...open, isOpen: false })).toEqual({
      kind: 'late',
    });
  });
});
