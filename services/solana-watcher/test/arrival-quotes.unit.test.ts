import { testLogger } from '@gateway/testkit';
import { ArrivalQuotes } from '../src/clients/arrival-quotes';
import type { TimedQuote } from '../src/clients/quote-desk';
import { QuoteUnavailableError, type Stablecoin } from '../src/domain/quote';
import { rationalFromDecimal } from '../src/domain/rational';

const MINTS = { usdc: 'MintUsdc', usdt: 'MintUsdt', eurc: 'MintEurc' };
const MAX_AGE_MS = 60_000;
const aPage = { transactions: [{}] };

/** A quote desk whose rates a test changes, counting what it was asked. */
function scriptedDesk(rates: Partial<Record<Stablecoin, string>>, clock: () => number) {
  const asked: Stablecoin[] = [];
  return {
    asked,
    rates,
    lock: (token: Stablecoin): Promise<TimedQuote> => {
      asked.push(token);
      const rate = rates[token];
      if (rate === undefined) return Promise.reject(new QuoteUnavailableError(`no quote for ${token}`));
      return Promise.resolve({
        token,
        tokenPerBrl: rationalFromDecimal(rate),
        sources: ['fixed'],
        at: new Date(clock()),
      });
    },
  };
}

describe('ArrivalQuotes: the quotes money arriving outside its window is valued at', () => {
  let now = Date.parse('2026-11-29T12:00:00Z');
  const clock = () => now;

  test('a page without transactions asks for no quote at all', async () => {
    const desk = scriptedDesk({ USDC: '0.18' }, clock);
    const quotes = new ArrivalQuotes(desk, MINTS, MAX_AGE_MS, testLogger(), clock);
    expect((await quotes.forPage({ transactions: [] })).size).toBe(0);
    expect(desk.asked).toEqual([]);
  });

  test('one quote per token while younger than the configured age, a new one after, each by mint', async () => {
    const desk = scriptedDesk({ USDC: '0.18', USDT: '0.18', EURC: '0.16' }, clock);
    const quotes = new ArrivalQuotes(desk, MINTS, MAX_AGE_MS, testLogger(), clock);
    const first = await quotes.forPage(aPage);
    expect(first.get('MintUsdc')).toEqual({
      token: 'usdc',
      token_per_brl: '18/100',
      quoted_at: new Date(now).toISOString(),
    });
    expect(first.get('MintEurc')).toMatchObject({ token: 'eurc', token_per_brl: '16/100' });

    now += MAX_AGE_MS;
    desk.rates.USDC = '0.36';
    expect((await quotes.forPage(aPage)).get('MintUsdc')).toEqual(first.get('MintUsdc'));
    expect(desk.asked).toHaveLength(3);

    now += 1;
    expect((await quotes.forPage(aPage)).get('MintUsdc')).toEqual({
      token: 'usdc',
      token_per_brl: '36/100',
      quoted_at: new Date(now).toISOString(),
    });
    expect(desk.asked).toHaveLength(6);
  });

  test('no fresh quote: null, never the older one; the next page asks again', async () => {
    const desk = scriptedDesk({ USDC: '0.18', USDT: '0.18', EURC: '0.16' }, clock);
    const quotes = new ArrivalQuotes(desk, MINTS, MAX_AGE_MS, testLogger(), clock);
    await quotes.forPage(aPage);
    now += MAX_AGE_MS + 1;
    delete desk.rates.USDC;
    const stale = await quotes.forPage(aPage);
    expect(stale.get('MintUsdc')).toBeNull();
    expect(stale.get('MintUsdt')).toMatchObject({ token: 'usdt' });

    desk.rates.USDC = '0.2';
    expect((await quotes.forPage(aPage)).get('MintUsdc')).toMatchObject({ token_per_brl: '2/10' });
  });
});
