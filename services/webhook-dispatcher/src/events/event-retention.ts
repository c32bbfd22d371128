import type { DataSource } from 'typeorm';
import { EVENT_RETENTION_DAYS, type PublicEvent } from '@gateway/contracts';
import { BatchPurge } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { purgeEventsBefore, type EventEntity } from '../persistence';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The oldest creation time the events API still shows: what the purge has not reached yet is hidden all the same. */
export function retainedSince(now: Date): Date {
  return new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS);
}

/** The stored event as the API returns it: its delivery body, parsed. */
export function publicEventOf(event: EventEntity): PublicEvent {
  return JSON.parse(event.body) as PublicEvent;
}

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
