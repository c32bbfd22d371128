import type { EntityManager } from 'typeorm';
import { CryptoRefundEntity } from './crypto-refund.entity';

/** A signed refund transaction as it is stored before it is sent. */
export interface StoredRefundTransaction {
  signature: string;
  /** base64 wire bytes. */
  transaction: string;
  lastValidBlockHeight: number;
}

export function findRefund(manager: EntityManager, refundId: string): Promise<CryptoRefundEntity | null> {
  return manager.findOneBy(CryptoRefundEntity, { refundId });
}

/** Serialises the refunds of one payment until the transaction ends. */
export async function lockRefundsOfPayment(manager: EntityManager, paymentId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`refunds:${paymentId}`]);
}

/** Base units the payment's refunds pay out or may still pay out (every refund not failed; not returns of funds). */
export async function committedRefundBaseUnits(manager: EntityManager, paymentId: string): Promise<bigint> {
  const [{ committed }]: [{ committed: string }] = await manager.query(
    `SELECT COALESCE(SUM(amount_base_units), 0)::text AS committed FROM crypto_refunds
      WHERE payment_id = $1 AND status <> 'failed' AND funds_id IS NULL`,
    [paymentId],
  );
  return BigInt(committed);
}

/** Inserts a new refund; the refund as inserted. */
export async function insertRefund(
  manager: EntityManager,
  refund: Omit<CryptoRefundEntity, 'createdAt' | 'updatedAt'>,
): Promise<CryptoRefundEntity> {
  const entity = manager.create(CryptoRefundEntity, refund);
  await manager.insert(CryptoRefundEntity, entity);
  return entity;
}

/** Stores the first signed transaction of a pending refund; false when another delivery stored one first. */
export async function markRefundSubmitted(
  manager: EntityManager,
  refundId: string,
  signed: StoredRefundTransaction,
): Promise<boolean> {
  const [stored]: [unknown[], number] = await manager.query(
    `UPDATE crypto_refunds SET status = 'submitted', signature = $2, signed_transaction = $3,
            last_valid_block_height = $4, updated_at = now()
      WHERE refund_id = $1 AND status = 'pending' RETURNING refund_id`,
    [refundId, signed.signature, signed.transaction, signed.lastValidBlockHeight],
  );
  return stored.length > 0;
}

/** Replaces the submitted transaction `expiredSignature` with a new one; nothing when another delivery did first. */
export async function replaceRefundTransaction(
  manager: EntityManager,
  refundId: string,
  expiredSignature: string | null,
  signed: StoredRefundTransaction,
): Promise<void> {
  await manager.query(
    `UPDATE crypto_refunds SET signature = $3, signed_transaction = $4, last_valid_block_height = $5,
            updated_at = now()
      WHERE refund_id = $1 AND status = 'submitted' AND signature = $2`,
    [refundId, expiredSignature, signed.signature, signed.transaction, signed.lastValidBlockHeight],
  );
}

/**
 * Ends a refund still carried out with the transaction `signature` (none: never signed); false when it has ended
 * already or moved to another transaction.
 */
export async function endRefund(
  manager: EntityManager,
  refundId: string,
  signature: string | null,
  outcome: 'succeeded' | 'failed',
  failureReason: string | null,
): Promise<boolean> {
  const [moved]: [unknown[], number] = await manager.query(
    `UPDATE crypto_refunds SET status = $2, failure_reason = $3, updated_at = now()
      WHERE refund_id = $1 AND status IN ('pending', 'submitted') AND signature IS NOT DISTINCT FROM $4
      RETURNING refund_id`,
    [refundId, outcome, failureReason, signature],
  );
  return moved.length > 0;
}
