import type { ArrivalQuote, Token } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { formatRatio } from '../domain/rational';
import type { Stablecoin } from '../domain/quote';
import type { QuoteDesk, TimedQuote } from './quote-desk';

/** The arrival quote of each accepted mint for one page of transfers; null where none could be had. */
export type ArrivalQuoteBook = ReadonlyMap<string, ArrivalQuote | null>;

const NO_QUOTES: ArrivalQuoteBook = new Map();

/**
 * The quotes money is valued at when it arrives outside its payment's window (docs/money-model.md#suspense): one per
 * accepted token, locked by the quote desk as a payment's is and kept while younger than `maxAgeMs`
 * (ARRIVAL_QUOTE_MAX_AGE_MS), so a busy chain costs at most one quote per token per that age. Asked before a page's
 * transaction (quotes may go over HTTP, never inside a transaction), and only for a page with transactions at all. A
 * token no fresh quote can be had for gets null: its money is then recorded without a value, never at an older quote.
 */
export class ArrivalQuotes {
  private readonly cache = new Map<Token, TimedQuote>();

  constructor(
    private readonly desk: Pick<QuoteDesk, 'lock'>,
    private readonly mints: Readonly<Record<Token, string>>,
    private readonly maxAgeMs: number,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  async forPage(page: { transactions: readonly unknown[] }): Promise<ArrivalQuoteBook> {
    if (page.transactions.length === 0) return NO_QUOTES;
    const entries = await Promise.all(
      (Object.entries(this.mints) as Array<[Token, string]>).map(
        async ([token, mint]) => [mint, await this.quoteOf(token)] as const,
      ),
    );
    return new Map(entries);
  }

  private async quoteOf(token: Token): Promise<ArrivalQuote | null> {
    const cached = this.cache.get(token);
    if (cached && this.clock() - cached.at.getTime() <= this.maxAgeMs) return arrivalQuote(token, cached);
    this.cache.delete(token);
    try {
      const fresh = await this.desk.lock(token.toUpperCase() as Stablecoin);
      this.cache.set(token, fresh);
      return arrivalQuote(token, fresh);
    } catch (err) {
      // Never fatal to the scan: the money is recorded all the same, without a value.
      this.logger.warn(
        { err: String(err), token },
        'no arrival quote: money arriving now is recorded unvalued',
      );
      return null;
    }
  }
}

function arrivalQuote(token: Token, quote: TimedQuote): ArrivalQuote {
  return { token, token_per_brl: formatRatio(quote.tokenPerBrl), quoted_at: quote.at.toISOString() };
}
