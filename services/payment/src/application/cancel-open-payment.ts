import type { CancelPayment, PaymentView } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { toView } from '../domain/payment-record';
import { invalidStatusMessage, isOpen } from '../domain/payment-status';
import { lockPayment } from '../persistence';
import { transitionPayment } from './shared/payment-events';

/**
 * Cancels the business's open payment under its row lock, the lock every confirmation takes too: of a cancel and a
 * confirmation racing, whichever commits first wins and the other finds the payment final (the cancel answers
 * INVALID_STATUS naming `paid`; the money of a confirmation that lost is kept as late funds). `payment.cancelled`
 * commits with it, and the rail closes the charge or request when it handles that event. Once per command (inbox).
 */
export function cancelOpenPayment(
  uow: UnitOfWork,
  command: CancelPayment,
  context: MessageContext,
): Promise<PaymentView> {
  return uow.once(context, async (tx) => {
    const payment = await lockPayment(tx.manager, command.payment_id);
    if (!payment || payment.businessId !== command.business_id)
      throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    if (!isOpen(payment.status))
      throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
    const cancelled = await transitionPayment(tx, payment.id, { status: 'cancelled' });
    if (!cancelled) throw new Error(`payment ${payment.id} left its open status under its lock`);
    return toView(cancelled, false);
  });
}
