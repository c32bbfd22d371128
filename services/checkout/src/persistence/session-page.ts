import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
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
