import type { CryptoRequestClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { isOpen } from '../domain/payment-status';
import { decideClosure } from '../domain/settlement';
import { hasReceivedFunds, lockPayment, recordReceivedFunds, transitionPayment } from '../persistence';

/**
 * The crypto window ended: expired with nothing, failed UNDERPAID with a partial transfer (to this request, or to
 * one an amount change replaced), or failed. Decided under the payment's row lock.
 */
export function handleCryptoRequestClosed(uow: UnitOfWork) {
  return async (event: CryptoRequestClosed, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, event.payment_id);
      if (BigInt(event.received_base_units) > 0n) {
        await recordReceivedFunds(tx.manager, {
          paymentId: event.payment_id,
          kind: 'partial',
          rail: 'crypto',
          railReference: event.reference,
          amountCentavos: null,
          amountBaseUnits: event.received_base_units,
        });
      }
      if (!payment || !isOpen(payment.status)) {
        context.logger.info({ payment_id: event.payment_id }, 'request closed for an ended payment');
        return;
      }
      const partial = await hasReceivedFunds(tx.manager, payment.id, 'partial');
      await transitionPayment(tx, payment.id, decideClosure(event.reason, partial, null));
    });
}
