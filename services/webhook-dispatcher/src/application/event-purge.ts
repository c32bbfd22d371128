import type { DataSource } from 'typeorm';
import { BatchPurge } from '@gateway/service-runtime';
import type { Logger } from '@gateway/observability';
import { retainedSince } from '../domain/public-event';
import { purgeEventsBefore } from '../persistence';

/** Deletes events past the retention window, a batch at a time, every `intervalMs`. */
export function eventPurge(
  dataSource: DataSource,
  options: { intervalMs?: number; batchSize?: number; logger: Logger },
): BatchPurge {
  return new BatchPurge({
    name: 'event-purge',
    metric: {
      name: 'webhook_dispatcher_events_purged_total',
      help: 'Public events deleted after the events API retention window',
    },
    deleteBatch: (batchSize) => purgeEventsBefore(dataSource.manager, retainedSince(new Date()), batchSize),
    intervalMs: options.intervalMs ?? 3_600_000,
    batchSize: options.batchSize,
    logger: options.logger,
  });
}
