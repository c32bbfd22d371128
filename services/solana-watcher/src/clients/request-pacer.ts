/**
 * Spaces every RPC request of the process to a budget per second, so the watcher stays within what its provider
 * allows instead of spending it in bursts and being refused. A rate-limit answer halves the pace and holds every
 * request back for the server's Retry-After (or a backoff); each success brings the pace back towards the budget
 * (additive increase, multiplicative decrease). Hand-written rather than a library: it is a few lines, and the
 * pace must change at run time from what the server answers.
 */
export class RequestPacer {
  private pace: number;
  private nextAt = 0;

  constructor(
    private readonly budgetPerSecond: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.pace = budgetPerSecond;
  }

  /** Requests per second the pacer lets through now (the budget, or less after rate limits). */
  get requestsPerSecond(): number {
    return this.pace;
  }

  /** Resolves when the next request may go. */
  async turn(): Promise<void> {
    const now = this.clock();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + 1000 / this.pace;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /** The server refused a request for rate: slow down and let nothing through for `pauseMs`. */
  rateLimited(pauseMs: number): void {
    this.pace = Math.max(this.budgetPerSecond / MAX_SLOWDOWN, this.pace / 2);
    this.nextAt = Math.max(this.nextAt, this.clock() + pauseMs);
  }

  /** A request went through: speed up again, at most to the budget. */
  succeeded(): void {
    this.pace = Math.min(this.budgetPerSecond, this.pace + this.budgetPerSecond / RECOVERY_REQUESTS);
  }
}

/** The pace never drops below budget / 32: a provider that refused for a while is tried again at a slow pace. */
const MAX_SLOWDOWN = 32;
/** Each success adds budget / 40 to the pace: from half the budget back to all of it in 20 requests. */
const RECOVERY_REQUESTS = 40;
