import { counter, type Logger } from '@gateway/observability';

export interface PeriodicTaskOptions {
  /** For logs. */
  name: string;
  /**
   * Pause between passes when nothing asks for an earlier one; a function is called before every wait, for an
   * interval that follows the load (the chain scanner's follows its RPC pace).
   */
  intervalMs: number | (() => number);
  logger: Logger;
}

const passes = counter('periodic_task_passes_total', 'Passes of each background loop, by outcome', [
  'task',
  'outcome',
]);

/**
 * A background loop for pollers (outbox relay, expiry sweepers, chain scanner, delivery worker): runs a pass, then
 * waits `intervalMs` unless the pass reports more work or `nudge()` was called meanwhile. A failing pass is logged and
 * retried after the interval, never in a tight loop. Each pass is counted by its name and outcome
 * (`periodic_task_passes_total{task,outcome}`). `stop()` waits for the pass in progress.
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
    // Its series are there from the start (at 0), so a loop that never finishes a pass shows as one.
    for (const outcome of ['done', 'failed']) passes.inc({ task: this.options.name, outcome }, 0);
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
        passes.inc({ task: this.options.name, outcome: 'done' });
      } catch (err) {
        passes.inc({ task: this.options.name, outcome: 'failed' });
        this.options.logger.warn({ err: String(err), task: this.options.name }, 'periodic task pass failed');
      }
      if (!this.running) break;
      if (more || this.nudged) continue;
      const { intervalMs } = this.options;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, typeof intervalMs === 'function' ? intervalMs() : intervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}

/**
 * A poller that owns its loop (the outbox relay, the expiry sweepers, the webhook delivery worker, the chain scanner):
 * a subclass says what one pass does, and its users start, nudge and stop it as they would the `PeriodicTask`
 * underneath.
 */
export abstract class PeriodicWorker {
  private readonly task: PeriodicTask;

  protected constructor(options: PeriodicTaskOptions) {
    this.task = new PeriodicTask(() => this.pass(), options);
  }

  start(): void {
    this.task.start();
  }

  /** Run a pass now rather than at the next interval. */
  nudge(): void {
    this.task.nudge();
  }

  /** Waits for the pass in progress. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Started and not asked to stop. */
  protected get isRunning(): boolean {
    return this.task.isRunning;
  }

  /** One pass; resolving `true` means "more is waiting: run again at once". */
  protected abstract pass(): Promise<boolean | void>;
}
