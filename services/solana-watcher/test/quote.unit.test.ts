import fc from 'fast-check';
import {
  FixedRateProvider,
  QuoteUnavailableError,
  medianQuote,
  tokenBaseUnitsForBrl,
  type PriceQuote,
  type Stablecoin,
} from '../src/domain/quote';
import { rationalFromDecimal, type Rational } from '../src/domain/rational';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const GUARDS = { maxAgeMs: 60_000, maxDeviationBps: 200, spreadBps: 0, now: NOW };

function quote(source: string, tokenPerBrl: string, ageMs = 0, token: Stablecoin = 'USDC'): PriceQuote {
  return { source, token, tokenPerBrl: rationalFromDecimal(tokenPerBrl), observedAt: NOW - ageMs };
}

function asNumber(value: Rational): number {
  return Number(value.numerator) / Number(value.denominator);
}

describe('tokenBaseUnitsForBrl', () => {
  it('converts exactly when the result is whole base units', () => {
    // R$ 100,00 at 0.2 token per BRL = 20 tokens
    expect(tokenBaseUnitsForBrl(10_000, '0.2')).toBe(20_000_000n);
  });

  it('rounds a fractional base unit up, never down', () => {
    // R$ 0,01 at 1/3 token per BRL = 0.00333... tokens -> 3334 base units
    expect(tokenBaseUnitsForBrl(1, { numerator: 1n, denominator: 3n })).toBe(3334n);
  });

  it('never charges less than the exact value and at most one base unit more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000_00 }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        (centavos, numerator, denominator) => {
          const units = tokenBaseUnitsForBrl(centavos, { numerator, denominator });
          const exactTimesDenominator = BigInt(centavos) * numerator * 10n ** 6n;
          const scale = denominator * 100n;
          return units * scale >= exactTimesDenominator && (units - 1n) * scale < exactTimesDenominator;
        },
      ),
    );
  });

  it('honours the token decimals', () => {
    expect(tokenBaseUnitsForBrl(100, '0.5', 2)).toBe(50n);
  });
});

describe('medianQuote', () => {
  it('takes the median of fresh quotes', () => {
    const locked = medianQuote(
      'USDC',
      [quote('a', '0.18'), quote('b', '0.181'), quote('c', '0.182')],
      GUARDS,
    );
    expect(asNumber(locked.tokenPerBrl)).toBeCloseTo(0.181, 12);
  });

  it('averages the two middle quotes when the count is even', () => {
    const locked = medianQuote('USDC', [quote('a', '0.18'), quote('b', '0.182')], GUARDS);
    expect(asNumber(locked.tokenPerBrl)).toBeCloseTo(0.181, 12);
  });

  it('ignores quotes older than maxAgeMs and fails when none is fresh', () => {
    const locked = medianQuote('USDC', [quote('old', '0.5', 120_000), quote('new', '0.18')], GUARDS);
    expect(locked.sources).toEqual(['new']);
    expect(() => medianQuote('USDC', [quote('old', '0.18', 120_000)], GUARDS)).toThrow(QuoteUnavailableError);
  });

  it('drops an outlier when the majority agrees', () => {
    const quotes = [quote('a', '0.18'), quote('b', '0.1801'), quote('bad', '0.30')];
    const locked = medianQuote('USDC', quotes, GUARDS);
    expect(locked.sources).toEqual(['a', 'b']);
  });

  it('refuses to quote when sources disagree without a majority', () => {
    expect(() => medianQuote('USDC', [quote('a', '0.18'), quote('b', '0.25')], GUARDS)).toThrow(
      QuoteUnavailableError,
    );
  });

  it('adds the spread so the buyer sends more tokens', () => {
    const locked = medianQuote('USDC', [quote('a', '0.2')], { ...GUARDS, spreadBps: 100 });
    expect(asNumber(locked.tokenPerBrl)).toBeCloseTo(0.2 * 1.01, 12);
  });

  it('uses only quotes of the requested token', () => {
    expect(() => medianQuote('EURC', [quote('a', '0.2')], GUARDS)).toThrow(QuoteUnavailableError);
  });
});

describe('FixedRateProvider', () => {
  it('quotes configured tokens at the current time and skips the others', async () => {
    const provider = new FixedRateProvider({ USDC: '0.18' }, () => NOW);
    const quotes = await provider.quotes(['USDC', 'USDT']);
    expect(quotes).toEqual([
      { source: 'fixed', token: 'USDC', tokenPerBrl: rationalFromDecimal('0.18'), observedAt: NOW },
    ]);
  });
});
