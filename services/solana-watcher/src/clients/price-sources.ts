import { fetch } from 'undici';
import { inOutgoingCall, tracerOf } from '@gateway/observability';
import { invert, rationalFromDecimal, type Rational } from '../domain/rational';
import { type PriceProvider, type PriceQuote, type Stablecoin } from '../domain/quote';

const COINGECKO_IDS: Record<Stablecoin, string> = { USDC: 'usd-coin', USDT: 'tether', EURC: 'euro-coin' };
const REQUEST_TIMEOUT_MS = 5_000;
const tracer = tracerOf('solana-watcher:price-sources');

/** One price read, in a span naming the source's host only, without our trace header (a third party). */
function getJson(source: string, url: string): Promise<unknown> {
  return inOutgoingCall(tracer, `price ${source}`, url, {}, async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`price source answered ${response.status} for ${url}`);
    return response.json();
  });
}

/** BRL per token as the sources publish it, turned into tokens per BRL without going through floats. */
function tokenPerBrl(brlPerToken: unknown): Rational | null {
  if (typeof brlPerToken !== 'number' && typeof brlPerToken !== 'string') return null;
  const price = rationalFromDecimal(String(brlPerToken));
  return price.numerator === 0n ? null : invert(price);
}

/** CoinGecko `simple/price`, using its own last-updated time so stale prices are caught. */
export class CoinGeckoProvider implements PriceProvider {
  readonly name = 'coingecko';

  constructor(private readonly baseUrl: string = 'https://api.coingecko.com/api/v3') {}

  async quotes(tokens: readonly Stablecoin[]): Promise<PriceQuote[]> {
    const ids = tokens.map((token) => COINGECKO_IDS[token]).join(',');
    const body = (await getJson(
      this.name,
      `${this.baseUrl}/simple/price?ids=${ids}&vs_currencies=brl&include_last_updated_at=true`,
    )) as Record<string, { brl?: unknown; last_updated_at?: unknown } | undefined>;
    return tokens.flatMap((token) => {
      const entry = body[COINGECKO_IDS[token]];
      const rate = tokenPerBrl(entry?.brl);
      if (!entry || !rate) return [];
      const observedAt =
        typeof entry.last_updated_at === 'number' ? entry.last_updated_at * 1000 : Date.now();
      return [{ source: this.name, token, tokenPerBrl: rate, observedAt }];
    });
  }
}

/** Binance spot ticker USDTBRL; it only lists USDT against BRL. */
export class BinanceTickerProvider implements PriceProvider {
  readonly name = 'binance';

  constructor(private readonly baseUrl: string = 'https://api.binance.com') {}

  async quotes(tokens: readonly Stablecoin[]): Promise<PriceQuote[]> {
    if (!tokens.includes('USDT')) return [];
    const body = (await getJson(this.name, `${this.baseUrl}/api/v3/ticker/price?symbol=USDTBRL`)) as {
      price?: unknown;
    };
    const rate = tokenPerBrl(body.price);
    return rate ? [{ source: this.name, token: 'USDT', tokenPerBrl: rate, observedAt: Date.now() }] : [];
  }
}
