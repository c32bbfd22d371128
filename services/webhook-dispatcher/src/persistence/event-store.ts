import type { EntityManager } from 'typeorm';
import type { WebhookEventName } from '@gateway/contracts';
import type { TraceHeaders } from '@gateway/observability';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { EventEntity } from './event.entity';

export interface NewEvent {
  id: string;
  businessId: string;
  type: WebhookEventName;
  /** The payment it is about; null for none (a payout's). */
  paymentId: string | null;
  body: string;
}

/** What storing an event with its deliveries did. */
export interface RecordedEvent {
  /** False when it was stored already (a redelivery, an outbox replay): nothing was stored. */
  recorded: boolean;
  /** Deliveries stored: one per active webhook of its business subscribed to its type. */
  deliveries: number;
  /** Active webhooks subscribed to it; when more than the ids given, nothing was stored (ask again with enough). */
  subscribed: number;
}

/**
 * Stores the event and a pending delivery, due now, for each active webhook of its business subscribed to its type,
 * in one statement (one round trip, atomic without a transaction): a stored event never lacks its deliveries. The
 * deliveries take their ids from `deliveries.ids` in order; a business with more subscribed webhooks than ids stores
 * nothing and answers how many it has. Nothing is stored for an event stored already.
 */
export async function insertEventWithDeliveries(
  manager: EntityManager,
  event: NewEvent,
  deliveries: { ids: readonly string[]; traceContext: TraceHeaders | null },
): Promise<RecordedEvent> {
  const [row]: Array<{ subscribed: number; recorded: number; deliveries: number }> = await manager.query(
    `WITH subscribed AS (
       SELECT id, row_number() OVER (ORDER BY id) AS n FROM webhooks
        WHERE business_id = $2::text AND status = 'active' AND deleted_at IS NULL AND $3::text = ANY(events)
     ), fits AS (
       SELECT count(*) <= cardinality($6::text[]) AS ok, count(*)::int AS subscribed FROM subscribed
     ), event AS (
       INSERT INTO events (id, business_id, type, payment_id, created_at, body)
       SELECT $1::text, $2::text, $3::text, $4::text, now(), $5::text FROM fits WHERE fits.ok
       ON CONFLICT (id) DO NOTHING RETURNING id
     ), delivered AS (
       INSERT INTO deliveries
         (id, webhook_id, event_id, event_type, body, status, attempt_count, next_attempt_at, trace_context)
       SELECT ($6::text[])[subscribed.n], subscribed.id, event.id, $3::text, $5::text, 'pending', 0, now(), $7::jsonb
         FROM subscribed CROSS JOIN event
       ON CONFLICT ON CONSTRAINT deliveries_one_per_event DO NOTHING RETURNING id
     )
     SELECT fits.subscribed, (SELECT count(*) FROM event)::int AS recorded,
            (SELECT count(*) FROM delivered)::int AS deliveries
       FROM fits`,
    [
      event.id,
      event.businessId,
      event.type,
      event.paymentId,
      event.body,
      deliveries.ids,
      deliveries.traceContext,
    ],
  );
  return { recorded: row!.recorded > 0, deliveries: row!.deliveries, subscribed: row!.subscribed };
}

/** The business's events stored since `since`, the last stored first, optionally of one type and of one payment. */
export function listEventsOf(
  manager: EntityManager,
  businessId: string,
  filters: { type?: WebhookEventName; paymentId?: string; since: Date },
  page: PageRequest,
): Promise<Page<EventEntity> | undefined> {
  return newestCreatedPage(manager, EventEntity, { business_id: businessId }, page, (events) => {
    events.andWhere('listed.created_at >= :since', { since: filters.since });
    if (filters.type) events.andWhere('listed.type = :type', { type: filters.type });
    if (filters.paymentId)
      events.andWhere('listed.payment_id = :paymentId', { paymentId: filters.paymentId });
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
