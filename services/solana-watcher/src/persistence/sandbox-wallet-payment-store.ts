import type { EntityManager } from 'typeorm';
import type { SignedTransfer } from '@gateway/solana-pay-wallet';

/** The test wallet's transaction for a `paid` simulation, by the command's message id (see the migration). */
export async function findSandboxWalletPayment(
  manager: EntityManager,
  messageId: string,
): Promise<SignedTransfer | undefined> {
  const rows: Array<{ signature: string; signed_transaction: string; last_valid_block_height: string }> =
    await manager.query(
      `SELECT signature, signed_transaction, last_valid_block_height
         FROM sandbox_wallet_payments WHERE message_id = $1`,
      [messageId],
    );
  const [row] = rows;
  return row
    ? {
        signature: row.signature,
        transaction: row.signed_transaction,
        lastValidBlockHeight: Number(row.last_valid_block_height),
      }
    : undefined;
}

/**
 * Keeps the transaction signed for this command before it is sent: true when kept, false when another delivery of the
 * same command kept one first (then that one is the command's, and this one is never sent). `replacing` names the
 * transaction this one replaces, one that can no longer land: kept only if it is still the command's.
 */
export async function keepSandboxWalletPayment(
  manager: EntityManager,
  messageId: string,
  signed: SignedTransfer,
  replacing?: SignedTransfer,
): Promise<boolean> {
  const values = [messageId, signed.signature, signed.transaction, signed.lastValidBlockHeight];
  if (!replacing) {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO sandbox_wallet_payments (message_id, signature, signed_transaction, last_valid_block_height)
       VALUES ($1, $2, $3, $4) ON CONFLICT (message_id) DO NOTHING RETURNING message_id`,
      values,
    );
    return inserted.length === 1;
  }
  // TypeORM answers an UPDATE on PostgreSQL with [rows, affected count].
  const [replaced]: [unknown[], number] = await manager.query(
    `UPDATE sandbox_wallet_payments
        SET signature = $2, signed_transaction = $3, last_valid_block_height = $4, signed_at = now()
      WHERE message_id = $1 AND signature = $5
      RETURNING message_id`,
    [...values, replacing.signature],
  );
  return replaced.length === 1;
}
