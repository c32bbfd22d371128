import { cryptoTransferUnapplied, type UnappliedTransferReason } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import type { PaymentRequestEntity } from '../../persistence';

/**
 * Tells the payment service of money on chain that does not count for the request's payment (`amount` null: a
 * transaction not readable yet), in the transaction that records it, so the payment keeps it on record.
 */
export async function emitTransferUnapplied(
  tx: Transaction,
  request: PaymentRequestEntity,
  transfer: { signature: string; amount: bigint | null; mint: string },
  reason: UnappliedTransferReason,
): Promise<void> {
  await tx.emit(
    cryptoTransferUnapplied,
    {
      payment_id: request.paymentId,
      reference: request.reference,
      signature: transfer.signature,
      amount_base_units: transfer.amount === null ? null : transfer.amount.toString(),
      mint: transfer.mint,
      reason,
      detected_at: new Date().toISOString(),
    },
    { correlationId: request.correlationId },
  );
}
