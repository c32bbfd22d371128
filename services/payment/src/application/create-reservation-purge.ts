import type { DataSource } from 'typeorm';
import { BatchPurge } from '@gateway/service-runtime';
import type { Logger } from '@gateway/observability';
import { purgeCreateReservations } from '../persistence';

export interface CreateReservationPurgeOptions {
  /** Longer than the gateway's idempotency window, so a retried create always finds its reservation. */
  retentionHours: number;
  intervalMs?: number;
  batchSize?: number;
  logger: Logger;
}

/**
 * Deletes the create commands' payment id reservations once their window is over, a batch at a time; processed inbox
 * rows are purged by the outbox relay after a longer window.
 */
export function createReservationPurge(
  dataSource: DataSource,
  options: CreateReservationPurgeOptions,
): BatchPurge {
  return new BatchPurge({
    name: 'create-reservation-purge',
    metric: {
      name: 'payment_create_reservations_purged_total',
      help: 'Create reservations deleted after their retention window',
    },
    deleteBatch: (batchSize) =>
      purgeCreateReservations(dataSource.manager, options.retentionHours, batchSize),
    intervalMs: options.intervalMs ?? 3_600_000,
    batchSize: options.batchSize,
    logger: options.logger,
  });
}
