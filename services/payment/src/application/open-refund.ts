import { newPublicId, type CreateRefund, type RefundRecord } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { Rails } from '../clients';
import { completesRefunds, decideRefund, refundRequest, toRefundRecord } from '../domain/refund';
import { insertRefund, lockHeldExcess, lockPayment } from '../persistence';
import { recordRefund } from './shared/payment-metrics';

const paymentNotFound = () => new CommandError('NOT_FOUND', 'Pagamento não encontrado.');

/**
 * Opens a refund of the business's payment under the payment's lock, so racing requests are decided one after the
 * other against what the earlier ones reserved; the rail is asked to carry it out by an event that commits with it.
 * The refund that completes the payment's refunds also carries the overpayment's excess if it is still held (marked
 * returned by it in the same transaction; excess already returned by hand stays out). Once per command (inbox): a
 * redelivery answers the refund it opened, never a second one.
 */
export function openRefund(
  uow: UnitOfWork,
  rails: Rails,
  command: CreateRefund,
  context: MessageContext,
): Promise<RefundRecord> {
  return uow.once(context, async (tx) => {
    const payment = await lockPayment(tx.manager, command.payment_id);
    if (!payment || payment.businessId !== command.business_id) throw paymentNotFound();
    const rail = rails.of(payment.method);
    const decision = decideRefund(
      payment,
      command.amount_centavos ?? null,
      rail.refundWindowDays,
      new Date(),
    );
    if (!decision.ok) throw new CommandError(decision.code, decision.message);
    const excess = completesRefunds(payment, decision.amountCentavos)
      ? await lockHeldExcess(tx.manager, payment.id)
      : null;
    const refund = await insertRefund(tx.manager, {
      id: newPublicId('ref'),
      paymentId: payment.id,
      businessId: payment.businessId,
      method: payment.method,
      amountCentavos: decision.amountCentavos,
      reason: command.reason ?? null,
      returnedFundsId: excess?.funds_id ?? null,
    });
    await tx.emit(rail.refundRequested, refundRequest(refund, payment.amountCentavos, excess));
    tx.afterCommit(() => recordRefund(refund.method, 'requested'));
    return toRefundRecord(refund);
  });
}
