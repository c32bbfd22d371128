import type { Logger } from '@gateway/observability';
import {
  medianQuote,
  type LockedQuote,
  type PriceProvider,
  type QuoteGuards,
  type Stablecoin,
} from '../domain/quote';

export interface TimedQuote extends LockedQuote {
  at: Date;
}

/** Asks every provider at once and locks the median; a provider that fails is left out, not fatal. */
export class QuoteDesk {
  constructor(
    private readonly providers: readonly PriceProvider[],
    private readonly guards: Omit<QuoteGuards, 'now'>,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Throws QuoteUnavailableError when no fresh, agreeing quote exists. */
  async lock(token: Stablecoin): Promise<TimedQuote> {
    const answers = await Promise.allSettled(this.providers.map((provider) => provider.quotes([token])));
    const quotes = answers.flatMap((answer, index) => {
      if (answer.status === 'fulfilled') return answer.value;
      this.logger.warn({ err: String(answer.reason), source: this.providers[index]?.name }, 'quote failed');
      return [];
    });
    const now = this.clock();
    return { ...medianQuote(token, quotes, { ...this.guards, now }), at: new Date(now) };
  }
}
