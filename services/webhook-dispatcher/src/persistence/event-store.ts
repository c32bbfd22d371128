import type { EntityManager } from 'typeorm';
import type { WebhookEventName } from '@gateway/contracts';
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

/** Stores the event; false when it is stored already (a redelivery, an outbox replay), which stores nothing. */
export async function insertEvent(manager: EntityManager, event: NewEvent): Promise<boolean> {
  const stored: unknown[] = await manager.query(
    `INSERT INTO events (id, business_id, type, payment_id, created_at, body) VALUES ($1, $2, $3, $4, now(), $5)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [event.id, event.businessId, event.type, event.paymentId, event.body],
  );
  return stored.length > 0;
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
