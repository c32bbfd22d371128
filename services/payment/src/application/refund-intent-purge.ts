import type { DataSource } from 'typeorm';
import { BatchPurge } from '@gateway/service-runtime';
import type { Logger } from '@gateway/observability';
import { purgeFinishedRefundIntents } from '../persistence';

export interface RefundIntentPurgeOptions {
  /** Longer than the gateway's idempotency window, so a retried refund command always finds its intent. */
  retentionHours: number;
  intervalMs?: number;
  batchSize?: number;
  logger: Logger;
}

/**
 * Deletes the refund commands' finished intents (opened, given up) once their window is over, a batch at a time; an
 * intent still reserving stays.
 */
export function refundIntentPurge(dataSource: DataSource, options: RefundIntentPurgeOptions): BatchPurge {
  return new BatchPurge({
    name: 'refund-intent-purge',
    metric: {
      name: 'payment_refund_intents_purged_total',
      help: 'Finished refund intents deleted after their retention window',
    },
    deleteBatch: (batchSize) =>
      purgeFinishedRefundIntents(dataSource.manager, options.retentionHours, batchSize),
    intervalMs: options.intervalMs ?? 3_600_000,
    batchSize: options.batchSize,
    logger: options.logger,
  });
}
