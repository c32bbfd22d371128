import { QuoteDesk } from '../src/clients/quote-desk';
import { FixedRateProvider, QuoteUnavailableError, type PriceProvider } from '../src/domain/quote';
import { rationalFromDecimal } from '../src/domain/rational';
import { testLogger } from '@gateway/testkit';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const GUARDS = { maxAgeMs: 60_000, maxDeviationBps: 200, spreadBps: 0 };
const failing: PriceProvider = {
  name: 'down',
  quotes: () => Promise.reject(new Error('price source answered 503')),
};

describe('QuoteDesk', () => {
  it('locks the median of the providers that answered, leaving a failing one out', async () => {
    const desk = new QuoteDesk(
      [
        failing,
        new FixedRateProvider({ USDC: '0.184' }, () => NOW),
        new FixedRateProvider({ USDC: '0.186' }, () => NOW),
      ],
      GUARDS,
      testLogger(),
      () => NOW,
    );
    const quote = await desk.lock('USDC');
    expect(quote.at).toEqual(new Date(NOW));
    expect(quote.sources).toEqual(['fixed', 'fixed']);
    expect(Number(quote.tokenPerBrl.numerator) / Number(quote.tokenPerBrl.denominator)).toBeCloseTo(
      0.185,
      10,
    );
  });

  it('refuses to quote when no provider answers', async () => {
    const desk = new QuoteDesk([failing], GUARDS, testLogger(), () => NOW);
    await expect(desk.lock('USDT')).rejects.toBeInstanceOf(QuoteUnavailableError);
  });

  it('refuses a quote older than the maximum age', async () => {
    const desk = new QuoteDesk(
      [new FixedRateProvider({ EURC: '0.16' }, () => NOW - 61_000)],
      GUARDS,
      testLogger(),
      () => NOW,
    );
    await expect(desk.lock('EURC')).rejects.toBeInstanceOf(QuoteUnavailableError);
  });

  it('applies the spread on top of the median', async () => {
    const desk = new QuoteDesk(
      [new FixedRateProvider({ USDC: '0.2' }, () => NOW)],
      { ...GUARDS, spreadBps: 100 },
      testLogger(),
      () => NOW,
    );
    const { tokenPerBrl } = await desk.lock('USDC');
    expect(tokenPerBrl.numerator * rationalFromDecimal('0.202').denominator).toBe(
      rationalFromDecimal('0.202').numerator * tokenPerBrl.denominator,
    );
  });
});
