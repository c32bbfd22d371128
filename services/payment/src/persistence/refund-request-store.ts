import type { EntityManager } from 'typeorm';
import { newPublicId } from '@gateway/contracts';

// The store of refund requests (`refund_requests`): each refund command's intent, the refund id it reserves its money
// under at the ledger and the amount, `reserving` until its refund is `opened` or the intent is `given_up`.

export interface RefundIntent {
  refundId: string;
  status: 'reserving' | 'opened';
  amountCentavos: number;
}

/** The live intent of this command message (not given up), locked until the transaction ends, if there is one. */
export async function lockLiveRefundIntent(
  manager: EntityManager,
  messageId: string,
): Promise<RefundIntent | undefined> {
  const rows: Array<{ refund_id: string; status: 'reserving' | 'opened'; amount_centavos: string }> =
    await manager.query(
      `SELECT refund_id, status, amount_centavos FROM refund_requests
       WHERE message_id = $1 AND given_up_at IS NULL FOR UPDATE`,
      [messageId],
    );
  const row = rows[0];
  return row
    ? { refundId: row.refund_id, status: row.status, amountCentavos: Number(row.amount_centavos) }
    : undefined;
}

/**
 * What the payment's other intents still being reserved ask for, in centavos: they count against its refundable rest
 * like its refunds do. The caller holds the payment's lock, which every intent of it is recorded and decided under.
 */
export async function reservingCentavos(
  manager: EntityManager,
  paymentId: string,
  exceptRefundId: string | null,
): Promise<number> {
  const rows: Array<{ total: string }> = await manager.query(
    `SELECT coalesce(sum(amount_centavos), 0) AS total FROM refund_requests
     WHERE payment_id = $1 AND status = 'reserving' AND refund_id IS DISTINCT FROM $2`,
    [paymentId, exceptRefundId],
  );
  return Number(rows[0]?.total ?? 0);
}

/**
 * Gives up the payment's intents still `reserving` after `olderThanMs`: their command stopped between asking the
 * ledger and opening the refund, or never asked it. Given up, one can never be opened (the ledger's sweep releases
 * what it may hold), so it no longer counts against the payment's rest. The caller holds the payment's lock.
 */
export async function giveUpStaleIntents(
  manager: EntityManager,
  paymentId: string,
  olderThanMs: number,
): Promise<void> {
  await manager.query(
    `UPDATE refund_requests SET status = 'given_up', given_up_at = now()
     WHERE payment_id = $1 AND status = 'reserving' AND created_at < now() - make_interval(secs => $2::double precision / 1000)`,
    [paymentId, olderThanMs],
  );
}

/** Records a command's intent to reserve `amountCentavos` of the payment under a new refund id; answers the id. */
export async function recordRefundIntent(
  manager: EntityManager,
  intent: { messageId: string; paymentId: string; amountCentavos: number },
): Promise<string> {
  const rows: Array<{ refund_id: string }> = await manager.query(
    `INSERT INTO refund_requests (refund_id, message_id, payment_id, amount_centavos, status)
     VALUES ($1, $2, $3, $4, 'reserving') RETURNING refund_id`,
    [newPublicId('ref'), intent.messageId, intent.paymentId, intent.amountCentavos],
  );
  const recorded = rows[0];
  if (!recorded) throw new Error('refund intent insert returned no row');
  return recorded.refund_id;
}

/** Whether the intent may still become a refund (`reserving`), locked until the transaction ends. */
export async function lockReservingIntent(manager: EntityManager, refundId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM refund_requests WHERE refund_id = $1 AND status = 'reserving' FOR UPDATE`,
    [refundId],
  );
  return rows.length > 0;
}

/** The intent's refund was opened, in the same transaction. */
export async function markIntentOpened(manager: EntityManager, refundId: string): Promise<void> {
  await manager.query(
    `UPDATE refund_requests SET status = 'opened' WHERE refund_id = $1 AND status = 'reserving'`,
    [refundId],
  );
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
    `UPDATE refund_requests SET status = 'given_up', given_up_at = now()
     WHERE refund_id = $1 AND status = 'reserving'`,
    [refundId],
  );
  return false;
}

/**
 * Deletes up to `batchSize` finished intents (`opened` or `given_up`) recorded more than `olderThanHours` ago; returns
 * how many. An intent is what lets a command delivered again find the refund id it reserved under; once its command id
 * can no longer come again (the gateway's idempotency window is over), a finished one only takes space: the refund,
 * and the inbox's stored answer, keep what matters, and a given-up id is never matched again anyway. An intent still
 * `reserving` is never purged: it may yet become a refund.
 */
export async function purgeFinishedRefundIntents(
  manager: EntityManager,
  olderThanHours: number,
  batchSize: number,
): Promise<number> {
  const [, deleted]: [unknown[], number] = await manager.query(
    `DELETE FROM refund_requests
      WHERE refund_id IN (
        SELECT refund_id FROM refund_requests
         WHERE status IN ('opened', 'given_up') AND created_at < now() - make_interval(hours => $1)
         LIMIT $2)`,
    [olderThanHours, batchSize],
  );
  return deleted;
}
