import { fateOf, planRefund, refundMemo, refundShare } from '../src/domain/refund';

const BUYER = 'GAcYSxENGALfvVAXxsHAq33qSZHWv9VFDavkmXNG3Uf3';
const OTHER = 'FZgM9J2ArLxEEAMH711E3Bj1LpSKZVb3zvckbfKg5XiY';
const whole = { amountCentavos: 10_000, paymentAmountCentavos: 10_000 };

describe('refundShare', () => {
  it('is the refund’s part of what was received, rounded down to the base unit', () => {
    expect(refundShare(18_000_001n, { amountCentavos: 3_333, paymentAmountCentavos: 10_000 })).toBe(
      5_999_400n,
    );
    expect(refundShare(18_000_001n, whole)).toBe(18_000_001n);
  });
});

describe('planRefund', () => {
  it('pays each owner its share of what it sent', () => {
    const plan = planRefund(
      [
        { owner: BUYER, amount: 10_000_000n },
        { owner: OTHER, amount: 8_000_001n },
        { owner: BUYER, amount: 1n },
      ],
      { amountCentavos: 5_000, paymentAmountCentavos: 10_000 },
      0n,
    );
    expect(plan).toEqual({
      kind: 'payouts',
      payouts: [
        { owner: BUYER, amount_base_units: '5000000' },
        { owner: OTHER, amount_base_units: '4000000' },
      ],
      total: 9_000_000n,
    });
  });

  it('refuses a payment no transfer paid', () => {
    expect(planRefund([], whole, 0n)).toMatchObject({ kind: 'refused' });
  });

  it('refuses more than the payment, or what other refunds leave', () => {
    const paid = [{ owner: BUYER, amount: 1_000n }];
    expect(planRefund(paid, { amountCentavos: 10_001, paymentAmountCentavos: 10_000 }, 0n)).toMatchObject({
      kind: 'refused',
    });
    expect(planRefund(paid, { amountCentavos: 5_000, paymentAmountCentavos: 10_000 }, 501n)).toMatchObject({
      kind: 'refused',
    });
    expect(planRefund(paid, { amountCentavos: 5_000, paymentAmountCentavos: 10_000 }, 500n)).toMatchObject({
      kind: 'payouts',
      total: 500n,
    });
  });

  it('refuses a share smaller than one base unit', () => {
    expect(
      planRefund([{ owner: BUYER, amount: 99n }], { amountCentavos: 1, paymentAmountCentavos: 100 }, 0n),
    ).toMatchObject({
      kind: 'refused',
    });
  });
});

describe('fateOf', () => {
  it('decides only once confirmed: success without an error, failure with the chain’s', () => {
    expect(fateOf(null)).toEqual({ kind: 'unknown' });
    expect(fateOf({ err: null, confirmationStatus: 'processed' })).toEqual({ kind: 'landing' });
    expect(
      fateOf({ err: { InstructionError: [2, { Custom: 17 }] }, confirmationStatus: 'processed' }),
    ).toEqual({
      kind: 'landing',
    });
    expect(fateOf({ err: null, confirmationStatus: 'confirmed' })).toEqual({ kind: 'succeeded' });
    expect(
      fateOf({ err: { InstructionError: [2, { Custom: 17 }] }, confirmationStatus: 'finalized' }),
    ).toEqual({
      kind: 'failed',
      reason: 'A transação falhou na rede: {"InstructionError":[2,{"Custom":17}]}',
    });
  });
});

describe('refundMemo', () => {
  it('names the refund, never the merchant’s reason, which stays off the public chain', () => {
    expect(refundMemo('ref_abcdefghijklmnopqrstuvwx', 'cliente Maria, CPF 529.982.247-25')).toBe(
      'refund ref_abcdefghijklmnopqrstuvwx',
    );
    expect(refundMemo('ref_abcdefghijklmnopqrstuvwx', null)).toBe('refund ref_abcdefghijklmnopqrstuvwx');
  });

  it('carries the sandbox failing word, which the local chain acts on', () => {
    expect(refundMemo('ref_abcdefghijklmnopqrstuvwx', 'simulate:fail')).toBe('simulate:fail');
  });
});
