import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import type { SessionStatus } from '../domain/session-status';
import { SessionEntity } from './session.entity';

/**
 * A page of a checkout's sessions, newest first (creation time, then id), after the session `startingAfter`;
 * undefined when that session is not one of this checkout's.
 */
export function findSessionPage(
  manager: EntityManager,
  checkoutId: string,
  page: PageRequest,
): Promise<Page<SessionEntity> | undefined> {
  return newestCreatedPage(manager, SessionEntity, { checkout_id: checkoutId }, page);
}

/** The checkout's session, or null (another checkout's session is not found either). */
export function findSessionOfCheckout(
  manager: EntityManager,
  checkoutId: string,
  sessionId: string,
): Promise<SessionEntity | null> {
  return manager.findOneBy(SessionEntity, { id: sessionId, checkoutId });
}

/** Inserts a new session (its creation time is the database's). */
export async function insertSession(
  manager: EntityManager,
  session: Pick<SessionEntity, 'id' | 'checkoutId' | 'paymentId' | 'subscriptionId' | 'status'>,
): Promise<void> {
  await manager.insert(SessionEntity, manager.create(SessionEntity, session));
}

/** The session that started a payment, locked until the transaction ends; null for a payment no session started. */
export function lockSessionOfPayment(
  manager: EntityManager,
  paymentId: string,
): Promise<SessionEntity | null> {
  return manager.findOne(SessionEntity, { where: { paymentId }, lock: { mode: 'pessimistic_write' } });
}

/** Moves a session from `current` to `next`; a session no longer in `current` is left as it is. */
export async function moveSessionStatus(
  manager: EntityManager,
  sessionId: string,
  current: SessionStatus,
  next: SessionStatus,
): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(SessionEntity)
    .set({ status: next, updatedAt: () => 'now()' })
    .where('id = :id AND status = :current', { id: sessionId, current })
    .execute();
}
