import { cryptoTransferUnapplied, type ArrivalQuote, type UnappliedTransferReason } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import type { PaymentRequestEntity } from '../../persistence';

/**
 * Tells the payment service of money on chain that does not count for the request's payment, in the transaction that
 * records it, so the payment keeps it on record once per instruction (`instruction`), valued at `quote` (the quote of
 * its arrival; null: none could be had, so it is not valued). A whole transaction has no instruction, no amount and no
 * quote: one not readable yet, or, once read, the word that its unreadable record can go.
 */
export async function emitTransferUnapplied(
  tx: Transaction,
  request: PaymentRequestEntity,
  transfer: { signature: string; instruction?: string; amount: bigint | null; mint: string },
  reason: UnappliedTransferReason,
  quote?: ArrivalQuote | null,
): Promise<void> {
  await tx.emit(
    cryptoTransferUnapplied,
    {
      payment_id: request.paymentId,
      reference: request.reference,
      signature: transfer.signature,
      ...(transfer.instruction === undefined ? {} : { instruction: transfer.instruction }),
      amount_base_units: transfer.amount === null ? null : transfer.amount.toString(),
      mint: transfer.mint,
      reason,
      detected_at: new Date().toISOString(),
      ...(quote === undefined ? {} : { quote }),
    },
    { correlationId: request.correlationId },
  );
}

/**
 * Tells every payment named by `requests` (once each, under its newest reference) of a whole transaction, amount
 * unknown: `unreadable` while the watcher cannot read it, `read` once it has.
 */
export async function emitWholeTransaction(
  tx: Transaction,
  requests: readonly PaymentRequestEntity[],
  signature: string,
  reason: 'unreadable' | 'read',
): Promise<void> {
  for (const request of oneRequestPerPayment(requests))
    await emitTransferUnapplied(tx, request, { signature, amount: null, mint: request.mint }, reason);
}

/** A payment named by an old and a new reference hears of a transaction once, under the newest. */
function oneRequestPerPayment(requests: readonly PaymentRequestEntity[]): PaymentRequestEntity[] {
  const byPayment = new Map<string, PaymentRequestEntity>();
  for (const request of requests) {
    const kept = byPayment.get(request.paymentId);
    if (!kept || kept.createdAt < request.createdAt) byPayment.set(request.paymentId, request);
  }
  return [...byPayment.values()];
}
