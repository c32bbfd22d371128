import type { EntityManager } from 'typeorm';
import { CryptoRefundEntity } from './crypto-refund.entity';

/** A signed refund transaction as it is stored before it is sent. */
export interface StoredRefundTransaction {
  signature: string;
  /** base64 wire bytes. */
  transaction: string;
  lastValidBlockHeight: number;
  blockhash: string;
  /** Micro-lamports per compute unit. */
  computeUnitPrice: number;
}

/** Keeps a signed attempt (in the same database transaction as the refund row that points to it). */
async function keepAttempt(
  manager: EntityManager,
  refundId: string,
  signed: StoredRefundTransaction,
): Promise<void> {
  await manager.query(
    `INSERT INTO crypto_refund_attempts
            (signature, refund_id, blockhash, compute_unit_price, signed_transaction, last_valid_block_height)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      signed.signature,
      refundId,
      signed.blockhash,
      signed.computeUnitPrice,
      signed.transaction,
      signed.lastValidBlockHeight,
    ],
  );
}

/**
 * The signatures signed for the refund on `blockhash`, oldest first: any of them may be the one that lands. Those of
 * an earlier blockhash are left out: it expired with none of them landed, so none ever can.
 */
export async function attemptedSignatures(
  manager: EntityManager,
  refundId: string,
  blockhash: string | null,
): Promise<string[]> {
  const rows: { signature: string }[] = await manager.query(
    `SELECT signature FROM crypto_refund_attempts WHERE refund_id = $1 AND blockhash IS NOT DISTINCT FROM $2
      ORDER BY signed_at, signature`,
    [refundId, blockhash],
  );
  return rows.map((row) => row.signature);
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

/**
 * Stores the first signed transaction of a pending refund, and keeps it as its first attempt; false when another
 * delivery stored one first. Runs its own database transaction.
 */
export function markRefundSubmitted(
  manager: EntityManager,
  refundId: string,
  signed: StoredRefundTransaction,
): Promise<boolean> {
  return manager.transaction(async (tx) => {
    const [stored]: [unknown[], number] = await tx.query(
      `UPDATE crypto_refunds SET status = 'submitted', signature = $2, signed_transaction = $3,
              last_valid_block_height = $4, blockhash = $5, compute_unit_price = $6, updated_at = now()
        WHERE refund_id = $1 AND status = 'pending' RETURNING refund_id`,
      [
        refundId,
        signed.signature,
        signed.transaction,
        signed.lastValidBlockHeight,
        signed.blockhash,
        signed.computeUnitPrice,
      ],
    );
    if (stored.length === 0) return false;
    await keepAttempt(tx, refundId, signed);
    return true;
  });
}

/**
 * Puts a new attempt on record in place of `previousSignature` (a higher price with the same blockhash, or a new
 * blockhash once every earlier attempt expired), keeping it with the others; false, and nothing kept, when another
 * delivery moved the refund first. Runs its own database transaction.
 */
export function replaceRefundTransaction(
  manager: EntityManager,
  refundId: string,
  previousSignature: string | null,
  signed: StoredRefundTransaction,
): Promise<boolean> {
  return manager.transaction(async (tx) => {
    const [moved]: [unknown[], number] = await tx.query(
      `UPDATE crypto_refunds SET signature = $3, signed_transaction = $4, last_valid_block_height = $5,
              blockhash = $6, compute_unit_price = $7, updated_at = now()
        WHERE refund_id = $1 AND status = 'submitted' AND signature = $2 RETURNING refund_id`,
      [
        refundId,
        previousSignature,
        signed.signature,
        signed.transaction,
        signed.lastValidBlockHeight,
        signed.blockhash,
        signed.computeUnitPrice,
      ],
    );
    if (moved.length === 0) return false;
    await keepAttempt(tx, refundId, signed);
    return true;
  });
}

/**
 * Puts the attempt that landed on record, so the refund ends with it (a refund settles by the transaction on record);
 * nothing when it is not one of the refund's attempts or the refund is no longer submitted.
 */
export async function recordLandedAttempt(
  manager: EntityManager,
  refundId: string,
  signature: string,
): Promise<void> {
  await manager.query(
    `UPDATE crypto_refunds r SET signature = a.signature, signed_transaction = a.signed_transaction,
            last_valid_block_height = a.last_valid_block_height, blockhash = a.blockhash,
            compute_unit_price = a.compute_unit_price, updated_at = now()
       FROM crypto_refund_attempts a
      WHERE r.refund_id = $1 AND r.status = 'submitted' AND r.signature <> $2
        AND a.refund_id = $1 AND a.signature = $2`,
    [refundId, signature],
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
