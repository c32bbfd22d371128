import fc from 'fast-check';
import { computeFee, parseFeeTerms } from '../src/domain/fee';

describe('computeFee', () => {
  test.each([
    // amount, bps, fixed, fee
    [10000, 199, 50, 249],
    [15050, 199, 50, 349], // 299.495 -> 299
    [250, 200, 0, 5], // exactly 5.0
    [25, 200, 0, 1], // 0.5 rounds half up -> 1
    [75, 200, 0, 2], // 1.5 -> 2
    [74, 200, 0, 1], // 1.48 -> 1
    [100, 0, 0, 0],
    [100, 10000, 0, 100],
    [100, 0, 35, 35],
    [Number.MAX_SAFE_INTEGER, 10000, 0, Number.MAX_SAFE_INTEGER],
  ])('%d centavos at %d bps + %d fixed costs %d centavos', (amount, bps, fixed, fee) => {
    expect(computeFee(amount, { percentBps: bps, fixedCentavos: fixed })).toEqual({
      feeCentavos: fee,
      netCentavos: amount - fee,
    });
  });

  test('the percent part is the amount times bps over 10000 rounded half up, for any amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 0, max: 10000 }),
        (amount, bps) => {
          const { feeCentavos } = computeFee(amount, { percentBps: bps, fixedCentavos: 0 });
          // In exact integers (ten-thousandths of a centavo): round half up leaves fee - exact in (-0.5, +0.5].
          const error = BigInt(feeCentavos) * 10000n - BigInt(amount) * BigInt(bps);
          expect(error > -5000n && error <= 5000n).toBe(true);
        },
      ),
      { examples: [[874533991250, 4516]] },
    );
  });

  test('the fee is capped at the amount, so the net is never negative', () => {
    expect(computeFee(100, { percentBps: 0, fixedCentavos: 500 })).toEqual({
      feeCentavos: 100,
      netCentavos: 0,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (amount, bps, fixed) => {
          const { feeCentavos, netCentavos } = computeFee(amount, { percentBps: bps, fixedCentavos: fixed });
          expect(netCentavos).toBeGreaterThanOrEqual(0);
          expect(feeCentavos + netCentavos).toBe(amount);
        },
      ),
    );
  });

  test('a negative or fractional input is refused', () => {
    expect(() => computeFee(-1, { percentBps: 1, fixedCentavos: 0 })).toThrow(RangeError);
    expect(() => computeFee(10.5, { percentBps: 1, fixedCentavos: 0 })).toThrow(RangeError);
    expect(() => computeFee(10, { percentBps: 1.5, fixedCentavos: 0 })).toThrow(RangeError);
  });
});

describe('a default fee rule as a deployment writes it', () => {
  test.each([
    ['99bps+0', { percentBps: 99, fixedCentavos: 0 }],
    ['150bps+10', { percentBps: 150, fixedCentavos: 10 }],
    ['0bps+0', { percentBps: 0, fixedCentavos: 0 }],
    ['10000bps+1000000', { percentBps: 10_000, fixedCentavos: 1_000_000 }],
  ])('%s', (text, terms) => {
    expect(parseFeeTerms(text)).toEqual(terms);
  });

  test('empty is no default', () => {
    expect(parseFeeTerms('')).toBeNull();
  });

  test.each([
    '99',
    '99bps',
    '99bps+',
    '+0',
    '1.5%',
    '99bps+0 ',
    ' 99bps+0',
    '-1bps+0',
    '10001bps+0',
    '99bps+1000001',
    '99bps+0\u0000',
    '9'.repeat(400),
  ])('refuses %j', (text) => {
    expect(() => parseFeeTerms(text)).toThrow(RangeError);
  });
});
