import { type Logger } from '@gateway/observability';

/** How long to wait before trying a failed settlement again: 250 ms, doubling, at most 5 s. */
const RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 5_000];

/**
 * What is waiting to settle at its time (a devolução, an envio). A settlement that fails (the simulator's database
 * refusing connections, say) is tried again until it settles or the simulator closes: a real PSP settles what it
 * accepted however long its own outage lasts, so the gateway is never left waiting for a callback that cannot come.
 * Settling is one conditional update in the books, so trying again never settles twice.
 */
export class SettlementTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  /** `now` is the simulator's clock: a time in the books is waited for as far ahead of it as it is. */
  constructor(
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Runs `settle` at `at`, and again after each failure. `what` names it in the log. */
  schedule(at: Date, settle: () => Promise<void>, what: Record<string, unknown>): void {
    this.after(Math.max(0, at.getTime() - this.now().getTime()), settle, what, 0);
  }

  /** Clears every timer; a settlement in flight is not tried again. A restart picks them up from the books. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private after(
    delayMs: number,
    settle: () => Promise<void>,
    what: Record<string, unknown>,
    failures: number,
  ): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      settle().catch((error: unknown) => {
        const retryInMs = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length - 1)] ?? 5_000;
        this.logger.warn({ err: error, ...what, retryInMs }, 'not settled yet; trying again');
        this.after(retryInMs, settle, what, failures + 1);
      });
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }
}
