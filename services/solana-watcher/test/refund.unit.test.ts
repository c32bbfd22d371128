import {
  MIN_PRICE_RAISE,
  computeUnitLimitFor,
  escalatedComputeUnitPrice,
  fateOf,
  planFundsReturn,
  planRefund,
  priceFromRecentFees,
  refundMemo,
  refundShare,
} from '../src/domain/refund';

const BUYER = 'GAcYSxENGALfvVAXxsHAq33qSZHWv9VFDavkmXNG3Uf3';
const OTHER = 'FZgM9J2ArLxEEAMH711E3Bj1LpSKZVb3zvckbfKg5XiY';
const whole = { amountCentavos: 10_000, paymentAmountCentavos: 10_000, excessBaseUnits: 0n };
const half = { amountCentavos: 5_000, paymentAmountCentavos: 10_000, excessBaseUnits: 0n };

describe('refundShare', () => {
  it('is the refund’s part of the price, rounded down to the base unit, plus its part of the excess it carries', () => {
    const third = { amountCentavos: 3_333, paymentAmountCentavos: 10_000, excessBaseUnits: 0n };
    expect(refundShare(18_000_001n, 18_000_001n, 18_000_001n, third)).toBe(5_999_400n);
    expect(refundShare(18_000_001n, 18_000_001n, 18_000_001n, whole)).toBe(18_000_001n);
    // Overpaid by 1 000 001: a full refund without the excess returns the price, with it all that was sent.
    expect(refundShare(18_000_001n, 18_000_001n, 17_000_000n, whole)).toBe(17_000_000n);
    expect(
      refundShare(18_000_001n, 18_000_001n, 17_000_000n, { ...whole, excessBaseUnits: 1_000_001n }),
    ).toBe(18_000_001n);
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
      half,
      18_000_002n,
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

  it('never returns an overpayment’s excess the payment service did not put on the refund', () => {
    const paid = [{ owner: BUYER, amount: 1_500n }];
    expect(planRefund(paid, whole, 1_000n, 0n)).toMatchObject({ kind: 'payouts', total: 1_000n });
    expect(planRefund(paid, { ...whole, excessBaseUnits: 500n }, 1_000n, 0n)).toMatchObject({
      kind: 'payouts',
      total: 1_500n,
    });
    // Two halves, the second completing the refunds with the excess: together all that was sent, once.
    expect(planRefund(paid, half, 1_000n, 0n)).toMatchObject({ total: 500n });
    expect(planRefund(paid, { ...half, excessBaseUnits: 500n }, 1_000n, 500n)).toMatchObject({
      total: 1_000n,
    });
  });

  it('refuses an excess larger than what arrived beyond the price', () => {
    const paid = [{ owner: BUYER, amount: 1_500n }];
    expect(planRefund(paid, { ...whole, excessBaseUnits: 501n }, 1_000n, 0n)).toMatchObject({
      kind: 'refused',
    });
    expect(planRefund(paid, { ...whole, excessBaseUnits: -1n }, 1_000n, 0n)).toMatchObject({
      kind: 'refused',
    });
  });

  it('refuses a payment no transfer paid', () => {
    expect(planRefund([], whole, 1_000n, 0n)).toMatchObject({ kind: 'refused' });
  });

  it('refuses more than the payment, or what other refunds leave', () => {
    const paid = [{ owner: BUYER, amount: 1_000n }];
    expect(planRefund(paid, { ...whole, amountCentavos: 10_001 }, 1_000n, 0n)).toMatchObject({
      kind: 'refused',
    });
    expect(planRefund(paid, half, 1_000n, 501n)).toMatchObject({ kind: 'refused' });
    expect(planRefund(paid, half, 1_000n, 500n)).toMatchObject({ kind: 'payouts', total: 500n });
  });

  it('refuses a share smaller than one base unit', () => {
    expect(
      planRefund(
        [{ owner: BUYER, amount: 99n }],
        { amountCentavos: 1, paymentAmountCentavos: 100, excessBaseUnits: 0n },
        99n,
        0n,
      ),
    ).toMatchObject({ kind: 'refused' });
  });
});

describe('planFundsReturn', () => {
  test('one sender gets the whole amount back', () => {
    expect(planFundsReturn([{ owner: 'A', amount: 700n }], 700n)).toEqual({
      kind: 'payouts',
      payouts: [{ owner: 'A', amount_base_units: '700' }],
      total: 700n,
    });
  });

  test('several senders share it by what each sent, rounded down, the remainder to the first: exactly the amount', () => {
    const plan = planFundsReturn(
      [
        { owner: 'A', amount: 100n },
        { owner: 'B', amount: 100n },
        { owner: 'A', amount: 100n },
      ],
      100n,
    );
    expect(plan).toEqual({
      kind: 'payouts',
      payouts: [
        { owner: 'A', amount_base_units: '67' },
        { owner: 'B', amount_base_units: '33' },
      ],
      total: 100n,
    });
  });

  test('nothing found on chain, or more than the transfers brought, is refused', () => {
    expect(planFundsReturn([], 1n)).toMatchObject({ kind: 'refused' });
    expect(planFundsReturn([{ owner: 'A', amount: 10n }], 11n)).toMatchObject({ kind: 'refused' });
    expect(planFundsReturn([{ owner: 'A', amount: 10n }], 0n)).toMatchObject({ kind: 'refused' });
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

describe('the compute-unit price of a refund transaction', () => {
  test('starts at the 75th percentile of recent fees, 0 when no block paid one', () => {
    expect(priceFromRecentFees([])).toBe(0);
    expect(priceFromRecentFees([0, 0, 0, 0])).toBe(0);
    expect(priceFromRecentFees([100, 0, 400, 300, 200, 0, 0, 0])).toBe(300);
    expect(priceFromRecentFees([5_000])).toBe(5_000);
  });

  test('is raised by half (at least 1,000 µL), or to what recent blocks ask if more, never above the cap', () => {
    expect(escalatedComputeUnitPrice(0, 0, 1_000_000)).toBe(MIN_PRICE_RAISE);
    expect(escalatedComputeUnitPrice(10_000, 0, 1_000_000)).toBe(15_000);
    expect(escalatedComputeUnitPrice(10_000, 50_000, 1_000_000)).toBe(50_000);
    expect(escalatedComputeUnitPrice(900_000, 0, 1_000_000)).toBe(1_000_000);
    expect(escalatedComputeUnitPrice(1_000_000, 2_000_000, 1_000_000)).toBe(1_000_000);
  });

  test('asks for compute units per recipient, so the price is paid on what the instructions need', () => {
    expect(computeUnitLimitFor(1)).toBe(90_000);
    expect(computeUnitLimitFor(3)).toBe(210_000);
  });
});
