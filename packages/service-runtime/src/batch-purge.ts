import { counter } from '@gateway/observability';
import { BatchTask, type BatchTaskOptions } from './batch-task';

export interface BatchPurgeOptions extends BatchTaskOptions {
  /** For logs. */
  name: string;
  /** The counter of rows deleted (`<service>_<what>_purged_total`), so an operator sees the purge keep up. */
  metric: { name: string; help: string };
  /** Deletes at most `batchSize` rows past their retention; resolves how many it deleted. */
  deleteBatch: (batchSize: number) => Promise<number>;
}

/** Rows deleted per statement, so a large backlog never holds one long transaction or many locks. */
const DEFAULT_BATCH_SIZE = 1000;

/**
 * A retention job: every `intervalMs` it deletes what is past its window, a batch at a time, the next batch at once
 * while batches come back full. Each deleted row is counted.
 */
export class BatchPurge extends BatchTask {
  private readonly purged;

  constructor(private readonly options: BatchPurgeOptions) {
    super(options.name, { ...options, batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE });
    this.purged = counter(options.metric.name, options.metric.help);
  }

  /** One batch; resolves how many rows it deleted. */
  async runOnce(): Promise<number> {
    const deleted = await this.options.deleteBatch(this.batchSize);
    if (deleted > 0) {
      this.purged.inc(deleted);
      this.options.logger.info({ deleted, task: this.options.name }, 'purged');
    }
    return deleted;
  }
}
