import type { EntityManager } from 'typeorm';
import { newPublicId } from '@gateway/contracts';

// The store of refund requests (`refund_requests`): the refund id each refund command reserves its money under.

/** The live refund id of this command message: the same one on every delivery, a new one once it was given up. */
export async function reserveRefundId(manager: EntityManager, messageId: string): Promise<string> {
  const rows: Array<{ refund_id: string }> = await manager.query(
    `INSERT INTO refund_requests (refund_id, message_id) VALUES ($1, $2)
     ON CONFLICT (message_id) WHERE given_up_at IS NULL DO UPDATE SET message_id = EXCLUDED.message_id
     RETURNING refund_id`,
    [newPublicId('ref'), messageId],
  );
  const reserved = rows[0];
  if (!reserved) throw new Error('refund id reservation returned no row');
  return reserved.refund_id;
}

/** Whether the refund id may still become a refund (reserved, not given up), locked until the transaction ends. */
export async function lockLiveRefundId(manager: EntityManager, refundId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM refund_requests WHERE refund_id = $1 AND given_up_at IS NULL FOR UPDATE`,
    [refundId],
  );
  return rows.length > 0;
}

/**
 * Gives the refund id up unless its refund exists: from then on it can never become one. The caller holds the
 * payment's lock, which opening a refund of it takes too, so the two are decided one after the other. Answers
 * whether the refund exists.
 */
export async function refundExistsOrGiveUp(manager: EntityManager, refundId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM refunds WHERE id = $1`, [refundId]);
  if (rows.length > 0) return true;
  await manager.query(
    `UPDATE refund_requests SET given_up_at = now() WHERE refund_id = $1 AND given_up_at IS NULL`,
    [refundId],
  );
  return false;
}
