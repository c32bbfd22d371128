import type { Logger } from '@gateway/observability';
import { PeriodicWorker } from '@gateway/messaging';

export interface BatchTaskOptions {
  /** Pause between passes while passes come back short of a full batch. */
  intervalMs: number;
  logger: Logger;
  /** Items one pass takes at most. */
  batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 50;

/**
 * A background job that takes at most `batchSize` items a pass (overdue charges, due payments, expired rows) and runs
 * the next pass at once while a pass comes back full, so a backlog drains without waiting for the interval.
 */
export abstract class BatchTask extends PeriodicWorker {
  protected readonly batchSize: number;

  protected constructor(name: string, options: BatchTaskOptions) {
    super({ name, intervalMs: options.intervalMs, logger: options.logger });
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  }

  protected override async pass(): Promise<boolean> {
    return (await this.runOnce()) >= this.batchSize;
  }

  /** One pass; resolves how many items it took. */
  abstract runOnce(): Promise<number>;
}
