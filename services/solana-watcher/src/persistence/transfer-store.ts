import type { EntityManager } from 'typeorm';
import { TransferEntity } from './transfer.entity';

/** A transfer found on chain for one of our references, as it is recorded. */
export interface TransferRecord {
  signature: string;
  reference: string;
  paymentId: string;
  amount: bigint;
  mint: string;
  slot: number;
  /** Unix seconds; null when the node did not give one. */
  blockTime: number | null;
  appliedTo: TransferEntity['appliedTo'];
}

/** Records a transfer once per (signature, reference); whether this call recorded it. */
export async function insertTransferOnce(manager: EntityManager, transfer: TransferRecord): Promise<boolean> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO transfers (signature, reference, payment_id, amount, mint, slot, block_time, applied_to)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING signature`,
    [
      transfer.signature,
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
    order: { slot: 'ASC', signature: 'ASC' },
  });
}

/** A transfer that paid a settled request of the payment, with the token it moved. */
export interface PayingTransferRow {
  signature: string;
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
    `SELECT t.signature, t.reference, t.amount, r.mint, r.decimals, r.amount_base_units AS price
       FROM transfers t JOIN payment_requests r ON r.reference = t.reference
      WHERE r.payment_id = $1 AND r.status = 'settled' AND t.applied_to = 'payment'
      ORDER BY t.slot, t.signature`,
    [paymentId],
  );
}
