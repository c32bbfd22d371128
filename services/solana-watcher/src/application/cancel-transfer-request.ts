import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { closeOpenRequest, lockOpenRequestOfPayment, paymentTransfersOf } from '../persistence';
import { emitTransferUnapplied } from './shared/transfer-unapplied';

/**
 * A cancelled crypto payment closes its open request as `cancelled`, so nothing settles it afterwards; a transfer to
 * its reference later is recorded aside and reported as crypto.transfer.unapplied.v1 (after_expiry: its window is
 * over), which the payment service keeps as received funds. What the request had received before (a partial
 * payment) is reported the same way now, since no closure will hand it over, valued at the request's own locked
 * quote: that money arrived within the window the quote was locked for. No crypto.request.closed.v1 is emitted:
 * the payment is already final, there is nothing for it to close. A request already closed (settled first, expired)
 * is left as it is; a redelivery finds nothing open.
 */
export function cancelTransferRequest(
  uow: UnitOfWork,
  paymentId: string,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    // Locked: the detector applies transfers to a request under the same lock, so one of the two goes first.
    const request = await lockOpenRequestOfPayment(tx.manager, paymentId);
    if (!request) {
      context.logger.info({ payment_id: paymentId }, 'cancelled payment has no open request');
      return;
    }
    await closeOpenRequest(tx.manager, request.reference, 'cancelled');
    const windowQuote = {
      token: request.token,
      token_per_brl: request.quoteRate,
      quoted_at: request.quoteAt.toISOString(),
    };
    for (const transfer of await paymentTransfersOf(tx.manager, request.reference))
      await emitTransferUnapplied(tx, request, transfer, 'after_expiry', windowQuote);
    context.logger.info(
      {
        payment_id: request.paymentId,
        reference: request.reference,
        received_base_units: request.receivedBaseUnits.toString(),
      },
      'request cancelled',
    );
  });
}
