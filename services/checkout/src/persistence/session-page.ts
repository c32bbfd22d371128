import type { EntityManager } from 'typeorm';
import { SessionEntity } from './session.entity';

/**
 * A page of a checkout's sessions, newest first (creation time, then id), after the session `startingAfter`;
 * undefined when that session is not one of this checkout's.
 */
export async function findSessionPage(
  manager: EntityManager,
  checkoutId: string,
  page: { limit: number; startingAfter: string | null },
): Promise<{ sessions: SessionEntity[]; hasMore: boolean } | undefined> {
  const query = manager
    .createQueryBuilder(SessionEntity, 'session')
    .where('session.checkout_id = :checkoutId', { checkoutId })
    .orderBy('session.created_at', 'DESC')
    .addOrderBy('session.id', 'DESC')
    .limit(page.limit + 1);
  if (page.startingAfter !== null) {
    const after = await manager.findOneBy(SessionEntity, { id: page.startingAfter, checkoutId });
    if (!after) return undefined;
    // Compared in the database: the JS Date of `after` would lose created_at's microseconds.
    query.andWhere(
      `(session.created_at, session.id) < (SELECT created_at, id FROM sessions WHERE id = :afterId)`,
      {
        afterId: after.id,
      },
    );
  }
  const sessions = await query.getMany();
  return { sessions: sessions.slice(0, page.limit), hasMore: sessions.length > page.limit };
}
