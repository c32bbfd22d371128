import type { EntityManager } from 'typeorm';
import { TransferEntity } from './transfer.entity';

/** A transfer found on chain for one of our references, as it is recorded. */
export interface TransferRecord {
  signature: string;
  /** The instruction's position in the transaction (`2`, or `2.0` for one it invoked). */
  instruction: string;
  reference: string;
  paymentId: string;
  amount: bigint;
  mint: string;
  slot: number;
  /** Unix seconds; null when the node did not give one. */
  blockTime: number | null;
  appliedTo: TransferEntity['appliedTo'];
}

/**
 * Records a transfer instruction once: the table's key (signature, instruction) lets one instruction's money be
 * recorded for one request only, whichever replica or scan sees it first. Whether this call recorded it.
 */
export async function insertTransferOnce(manager: EntityManager, transfer: TransferRecord): Promise<boolean> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO transfers (signature, instruction, reference, payment_id, amount, mint, slot, block_time, applied_to)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (signature, instruction) DO NOTHING RETURNING signature`,
    [
      transfer.signature,
      transfer.instruction,
      transfer.reference,
      transfer.paymentId,
      transfer.amount.toString(),
      transfer.mint,
      transfer.slot,
      transfer.blockTime === null ? null : new Date(transfer.blockTime * 1000),
      transfer.appliedTo,
    ],
  );
  return inserted.length > 0;
}

/** The transfers a request counted towards its payment, in chain order. */
export function paymentTransfersOf(manager: EntityManager, reference: string): Promise<TransferEntity[]> {
  return manager.find(TransferEntity, {
    where: { reference, appliedTo: 'payment' },
    order: { slot: 'ASC', signature: 'ASC', instruction: 'ASC' },
  });
}

/** A transfer that paid a settled request of the payment, with the token it moved. */
export interface PayingTransferRow {
  signature: string;
  instruction: string;
  reference: string;
  amount: string;
  mint: string;
  decimals: number;
  /** The settled request's token amount: what the payment was priced at, in base units. */
  price: string;
}

/** The transfers that paid the payment (those of its settled request), in chain order. */
export function payingTransfersOf(manager: EntityManager, paymentId: string): Promise<PayingTransferRow[]> {
  return manager.query(
    `SELECT t.signature, t.instruction, t.reference, t.amount, r.mint, r.decimals, r.amount_base_units AS price
       FROM transfers t JOIN payment_requests r ON r.reference = t.reference
      WHERE r.payment_id = $1 AND r.status = 'settled' AND t.applied_to = 'payment'
      ORDER BY t.slot, t.signature, t.instruction`,
    [paymentId],
  );
}

/** What the transfers recorded since `since` brought to the wallet, per mint, in base units. */
export async function receivedSinceByMint(manager: EntityManager, since: Date): Promise<Map<string, bigint>> {
  const rows = (await manager.query(
    `SELECT mint, sum(amount)::text AS amount FROM transfers WHERE recorded_at >= $1 GROUP BY mint`,
    [since],
  )) as Array<{ mint: string; amount: string }>;
  return new Map(rows.map((row) => [row.mint, BigInt(row.amount)]));
}

/** A transfer that brought held received funds, with its token's decimals when its request is known. */
export interface ReturnedTransferRow {
  signature: string;
  instruction: string;
  reference: string;
  amount: string;
  mint: string;
  decimals: number | null;
}

/**
 * The transfers whose money the received funds of `railReference` are: the transaction's instruction `instruction`, or
 * all of the transaction's transfers (none given); or, for what a request's window collected, the transfers to that
 * reference. In chain order.
 */
export function transfersOfFunds(
  manager: EntityManager,
  railReference: string,
  instruction: string | null,
): Promise<ReturnedTransferRow[]> {
  return manager.query(
    `SELECT t.signature, t.instruction, t.reference, t.amount::text AS amount, t.mint, r.decimals
       FROM transfers t LEFT JOIN payment_requests r ON r.reference = t.reference
      WHERE (t.signature = $1 AND ($2::text IS NULL OR t.instruction = $2)) OR (t.reference = $1 AND $2::text IS NULL)
      ORDER BY t.slot, t.signature, t.instruction`,
    [railReference, instruction],
  );
}
