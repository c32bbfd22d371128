import {
  newPublicId,
  refundFailed,
  refundSucceeded,
  type CreateRefund,
  type RefundRecord,
  type RefundSettled,
} from '@gateway/contracts';
import { CommandError, type Transaction } from '@gateway/messaging';
import { decideRefund, toRefundRecord } from '../domain/refund';
import { insertRefund, lockPayment, markRefundSettled } from '../persistence';
import { recordRefund } from '../payment-metrics';
import type { Rails } from '../rails';

const paymentNotFound = () => new CommandError('NOT_FOUND', 'Pagamento não encontrado.');

/**
 * Opens a refund of the business's payment under the payment's lock, so racing requests are decided one after the
 * other against what the earlier ones reserved; the rail is asked to carry it out by an event that commits with it.
 */
export async function openRefund(
  tx: Transaction,
  rails: Rails,
  command: CreateRefund,
): Promise<RefundRecord> {
  const payment = await lockPayment(tx.manager, command.payment_id);
  if (!payment || payment.businessId !== command.business_id) throw paymentNotFound();
  const rail = rails.of(payment.method);
  const decision = decideRefund(payment, command.amount_centavos ?? null, rail.refundWindowDays, new Date());
  if (!decision.ok) throw new CommandError(decision.code, decision.message);
  const refund = await insertRefund(tx.manager, {
    id: newPublicId('ref'),
    paymentId: payment.id,
    businessId: payment.businessId,
    method: payment.method,
    amountCentavos: decision.amountCentavos,
    reason: command.reason ?? null,
  });
  await tx.emit(rail.refundRequested, {
    refund_id: refund.id,
    payment_id: payment.id,
    amount_centavos: refund.amountCentavos,
    payment_amount_centavos: payment.amountCentavos,
    reason: refund.reason,
  });
  tx.afterCommit(() => recordRefund(refund.method, 'requested'));
  return toRefundRecord(refund);
}

/** Records a rail's outcome for a refund and tells the merchant (`refund.succeeded` / `refund.failed`), once. */
export async function settleRefund(tx: Transaction, settled: RefundSettled): Promise<void> {
  const refund = await markRefundSettled(tx.manager, settled);
  if (!refund) return;
  const eventId = newPublicId('evt');
  await tx.emit(
    settled.outcome === 'succeeded' ? refundSucceeded : refundFailed,
    {
      event_id: eventId,
      business_id: refund.businessId,
      occurred_at: new Date().toISOString(),
      refund: toRefundRecord(refund),
    },
    { messageId: eventId },
  );
  tx.afterCommit(() => recordRefund(refund.method, settled.outcome));
}
