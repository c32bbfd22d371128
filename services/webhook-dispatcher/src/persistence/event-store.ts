import type { EntityManager } from 'typeorm';
import { newPublicId, type WebhookEventName } from '@gateway/contracts';
import type { TraceHeaders } from '@gateway/observability';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { EventEntity } from './event.entity';

export interface NewEvent {
  id: string;
  businessId: string;
  type: WebhookEventName;
  body: string;
  /** The trace the event came in (the payment's): each delivery's attempts are spans in it. */
  traceContext: TraceHeaders | null;
}

/**
 * Stores the event and one pending delivery per active webhook of its business subscribed to its type, in the
 * caller's transaction. An event stored already (a redelivery, an outbox replay) adds nothing: 0 deliveries.
 */
export async function storeEventWithDeliveries(manager: EntityManager, event: NewEvent): Promise<number> {
  const stored: unknown[] = await manager.query(
    `INSERT INTO events (id, business_id, type, created_at, body) VALUES ($1, $2, $3, now(), $4)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [event.id, event.businessId, event.type, event.body],
  );
  if (stored.length === 0) return 0;
  const webhooks: Array<{ id: string }> = await manager.query(
    `SELECT id FROM webhooks
      WHERE business_id = $1 AND status = 'active' AND deleted_at IS NULL AND $2 = ANY(events)`,
    [event.businessId, event.type],
  );
  let deliveries = 0;
  for (const webhook of webhooks) {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO deliveries
         (id, webhook_id, event_id, event_type, body, status, attempt_count, next_attempt_at, trace_context)
       VALUES ($1, $2, $3, $4, $5, 'pending', 0, now(), $6)
       ON CONFLICT ON CONSTRAINT deliveries_one_per_event DO NOTHING RETURNING id`,
      [newPublicId('dlv'), webhook.id, event.id, event.type, event.body, event.traceContext],
    );
    deliveries += inserted.length;
  }
  return deliveries;
}

/** The business's events stored since `since`, the last stored first, optionally of one type. */
export function listEventsOf(
  manager: EntityManager,
  businessId: string,
  filters: { type?: WebhookEventName; since: Date },
  page: PageRequest,
): Promise<Page<EventEntity> | undefined> {
  return newestCreatedPage(manager, EventEntity, { business_id: businessId }, page, (events) => {
    events.andWhere('listed.created_at >= :since', { since: filters.since });
    if (filters.type) events.andWhere('listed.type = :type', { type: filters.type });
  });
}

export function findEvent(manager: EntityManager, eventId: string, businessId: string, since: Date) {
  return manager
    .createQueryBuilder(EventEntity, 'event')
    .where('event.id = :eventId AND event.business_id = :businessId AND event.created_at >= :since', {
      eventId,
      businessId,
      since,
    })
    .getOne();
}

/** Deletes at most `batchSize` events created before `before`; resolves how many. */
export async function purgeEventsBefore(
  manager: EntityManager,
  before: Date,
  batchSize: number,
): Promise<number> {
  const [, deleted]: [unknown[], number] = await manager.query(
    `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < $1 LIMIT $2)`,
    [before, batchSize],
  );
  return deleted;
}
