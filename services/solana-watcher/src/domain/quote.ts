import {
  average,
  ceilDiv,
  compare,
  deviationBps,
  rationalFromDecimal,
  scaleByBps,
  type Rational,
} from './rational';

export type Stablecoin = 'USDC' | 'USDT' | 'EURC';

export interface PriceQuote {
  source: string;
  token: Stablecoin;
  /** How many whole tokens one BRL buys. */
  tokenPerBrl: Rational;
  /** When the source observed the price, epoch milliseconds. */
  observedAt: number;
}

export interface PriceProvider {
  readonly name: string;
  quotes(tokens: readonly Stablecoin[]): Promise<PriceQuote[]>;
}

export interface LockedQuote {
  token: Stablecoin;
  tokenPerBrl: Rational;
  sources: string[];
}

export interface QuoteGuards {
  maxAgeMs: number;
  /** Quotes farther than this from the median are outliers; a majority must agree or nothing is quoted. */
  maxDeviationBps: number;
  /** Added on top of the median, so the platform does not lose on conversion. */
  spreadBps: number;
  now: number;
}

export class QuoteUnavailableError extends Error {}

/** Crypto amount for a BRL amount, rounded UP to the token's base unit (docs/adr/0002-money-as-integer-centavos.md). */
export function tokenBaseUnitsForBrl(centavos: number, rate: Rational | string, decimals = 6): bigint {
  if (!Number.isSafeInteger(centavos) || centavos < 0)
    throw new RangeError('centavos must be a non-negative integer');
  const tokenPerBrl = typeof rate === 'string' ? rationalFromDecimal(rate) : rate;
  const numerator = BigInt(centavos) * tokenPerBrl.numerator * 10n ** BigInt(decimals);
  return ceilDiv(numerator, tokenPerBrl.denominator * 100n);
}

/** A provider with configured rates, for the sandbox and tests. */
export class FixedRateProvider implements PriceProvider {
  readonly name = 'fixed';

  constructor(
    private readonly rates: Partial<Record<Stablecoin, string>>,
    private readonly clock: () => number = Date.now,
  ) {}

  async quotes(tokens: readonly Stablecoin[]): Promise<PriceQuote[]> {
    return tokens.flatMap((token) => {
      const rate = this.rates[token];
      return rate === undefined
        ? []
        : [{ source: this.name, token, tokenPerBrl: rationalFromDecimal(rate), observedAt: this.clock() }];
    });
  }
}

/** The median of fresh quotes for one token, outliers dropped, plus the spread. */
export function medianQuote(
  token: Stablecoin,
  quotes: readonly PriceQuote[],
  guards: QuoteGuards,
): LockedQuote {
  const fresh = quotes.filter(
    (quote) => quote.token === token && guards.now - quote.observedAt <= guards.maxAgeMs,
  );
  if (fresh.length === 0) throw new QuoteUnavailableError(`no fresh ${token} quote`);
  const median = medianOf(fresh.map((quote) => quote.tokenPerBrl));
  const agreeing = fresh.filter(
    (quote) => deviationBps(quote.tokenPerBrl, median) <= BigInt(guards.maxDeviationBps),
  );
  if (agreeing.length * 2 <= fresh.length) {
    throw new QuoteUnavailableError(`${token} quotes disagree by more than ${guards.maxDeviationBps} bps`);
  }
  const agreedMedian = medianOf(agreeing.map((quote) => quote.tokenPerBrl));
  return {
    token,
    tokenPerBrl: scaleByBps(agreedMedian, 10_000n + BigInt(guards.spreadBps)),
    sources: agreeing.map((quote) => quote.source),
  };
}

function medianOf(values: readonly Rational[]): Rational {
  const sorted = [...values].sort(compare);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : average(sorted[middle - 1]!, sorted[middle]!);
}
