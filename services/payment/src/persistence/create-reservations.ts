import type { EntityManager } from 'typeorm';

/**
 * Deletes up to `batchSize` create reservations older than `olderThanHours`; returns how many. Once its message id
 * can no longer come again, a reservation only takes space: the payment row and the inbox keep what matters.
 */
export async function purgeCreateReservations(
  manager: EntityManager,
  olderThanHours: number,
  batchSize: number,
): Promise<number> {
  const [, deleted]: [unknown[], number] = await manager.query(
    `DELETE FROM payment_create_requests
      WHERE message_id IN (
        SELECT message_id FROM payment_create_requests
         WHERE created_at < now() - make_interval(hours => $1)
         LIMIT $2)`,
    [olderThanHours, batchSize],
  );
  return deleted;
}
