import { cryptoTransferUnapplied, type PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { PaymentRequestEntity, TransferEntity } from '../persistence';

/**
 * A cancelled crypto payment closes its open request as `cancelled`, so nothing settles it afterwards; a transfer to
 * its reference later is recorded aside and reported as crypto.transfer.unapplied.v1 (after_expiry: its window is
 * over), which the payment service keeps as received funds. What the request had received before (a partial
 * payment) is reported the same way now, since no closure will hand it over. No crypto.request.closed.v1 is emitted:
 * the payment is already final, there is nothing for it to close. Other methods' cancellations, and a request
 * already closed (settled first, expired), are left as they are; a redelivery finds nothing open.
 */
export function handlePaymentCancelled(uow: UnitOfWork) {
  return async (event: PaymentEventPayload, context: MessageContext): Promise<void> => {
    if (event.payment.method !== 'crypto') return;
    await uow.once(context, async (tx) => {
      // Locked: the detector applies transfers to a request under the same lock, so one of the two goes first.
      const request = await tx.manager.findOne(PaymentRequestEntity, {
        where: { paymentId: event.payment.payment_id, status: 'open' },
        lock: { mode: 'pessimistic_write' },
      });
      if (!request) {
        context.logger.info(
          { payment_id: event.payment.payment_id },
          'cancelled payment has no open request',
        );
        return;
      }
      await tx.manager.update(
        PaymentRequestEntity,
        { reference: request.reference, status: 'open' },
        { status: 'cancelled' },
      );
      const received = await tx.manager.find(TransferEntity, {
        where: { reference: request.reference, appliedTo: 'payment' },
        order: { slot: 'ASC', signature: 'ASC' },
      });
      for (const transfer of received) {
        await tx.emit(
          cryptoTransferUnapplied,
          {
            payment_id: request.paymentId,
            reference: request.reference,
            signature: transfer.signature,
            amount_base_units: transfer.amount.toString(),
            mint: transfer.mint,
            reason: 'after_expiry',
            detected_at: new Date().toISOString(),
          },
          { correlationId: request.correlationId },
        );
      }
      context.logger.info(
        {
          payment_id: request.paymentId,
          reference: request.reference,
          received_base_units: request.receivedBaseUnits.toString(),
        },
        'request cancelled',
      );
    });
  };
}
