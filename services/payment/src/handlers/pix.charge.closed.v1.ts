import type { PixChargeClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { isOpen } from '../domain/payment-status';
import { decideClosure } from '../domain/settlement';
import { hasReceivedFunds, lockPayment, transitionPayment } from '../persistence';
import { applyReceivedPix } from './pix.charge.paid.v1';

/**
 * The PIX charge ended unpaid: expired (failed UNDERPAID if a partial PIX came in) or removed by the PSP. Decided
 * under the payment's row lock, after recording the PIX the closure lists: their own pix.charge.paid.v1 may be
 * handled before or after this, concurrently, and the outcome is the same.
 */
export function handlePixChargeClosed(uow: UnitOfWork) {
  return async (event: PixChargeClosed, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, event.payment_id);
      for (const pix of event.received_pix) {
        await applyReceivedPix(
          tx,
          payment,
          { paymentId: event.payment_id, endToEndId: pix.end_to_end_id, amountCentavos: pix.amount_centavos },
          context.logger,
        );
      }
      if (!payment || !isOpen(payment.status)) {
        context.logger.info({ payment_id: event.payment_id }, 'charge closed for an ended payment');
        return;
      }
      const partial = await hasReceivedFunds(tx.manager, payment.id, 'partial');
      await transitionPayment(tx, payment.id, decideClosure(event.reason, partial, event.detail));
    });
}
