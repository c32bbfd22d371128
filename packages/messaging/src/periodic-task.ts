import type { Logger } from '@gateway/observability';

export interface PeriodicTaskOptions {
  /** For logs. */
  name: string;
  /** Pause between passes when nothing asks for an earlier one. */
  intervalMs: number;
  logger: Logger;
}

/**
 * A background loop for pollers (outbox relay, expiry sweepers, chain scanner, delivery worker): runs a pass, then
 * waits `intervalMs` unless the pass reports more work or `nudge()` was called meanwhile. A failing pass is logged and
 * retried after the interval, never in a tight loop. `stop()` waits for the pass in progress.
 */
export class PeriodicTask {
  private running = false;
  private nudged = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(
    /** One pass; resolving `true` means "more is waiting: run again at once". */
    private readonly pass: () => Promise<boolean | void>,
    private readonly options: PeriodicTaskOptions,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Run a pass now rather than at the next interval. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.nudged = false;
      let more = false;
      try {
        more = (await this.pass()) === true;
      } catch (err) {
        this.options.logger.warn({ err: String(err), task: this.options.name }, 'periodic task pass failed');
      }
      if (!this.running) break;
      if (more || this.nudged) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.intervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
