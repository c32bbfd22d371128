import type { EntityManager } from 'typeorm';
import { newPublicId } from '@gateway/contracts';

// The store of create reservations (payment_create_requests): the payment id each create command's message id gets.

/**
 * The payment id a create command reserved (the same message id always gets the same payment id), and whether that
 * payment exists already (a redelivery of a create that went through): one round trip for both.
 */
export async function reservePaymentId(
  manager: EntityManager,
  createMessageId: string,
): Promise<{ paymentId: string; created: boolean }> {
  const rows: Array<{ payment_id: string; created: boolean }> = await manager.query(
    `INSERT INTO payment_create_requests (message_id, payment_id) VALUES ($1, $2)
     ON CONFLICT (message_id) DO UPDATE SET message_id = EXCLUDED.message_id
     RETURNING payment_id, EXISTS (SELECT 1 FROM payments WHERE id = payment_create_requests.payment_id) AS created`,
    [createMessageId, newPublicId('pay')],
  );
  const reserved = rows[0];
  if (!reserved) throw new Error('payment id reservation returned no row');
  return { paymentId: reserved.payment_id, created: reserved.created };
}

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
