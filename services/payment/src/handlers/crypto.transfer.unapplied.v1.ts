import type { CryptoTransferUnapplied } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { lockPayment } from '../persistence';
import { recordLateFunds } from '../settlement/late-funds';

/**
 * The watcher saw a transfer for the payment that did not count towards it: kept in received_funds under its
 * signature, never applied and never changing the payment's status. A transfer in another token is `unmatched`
 * (it is not the money the payment asked for, whenever it came); any other (after expiry, after settlement, to a
 * superseded reference) is `late`.
 */
export function handleCryptoTransferUnapplied(uow: UnitOfWork) {
  return async (event: CryptoTransferUnapplied, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, event.payment_id);
      // The same transaction also paid the payment under its current reference: that money is already counted.
      if (payment?.transactionId === event.signature) return;
      await recordLateFunds(
        tx.manager,
        context.logger,
        {
          paymentId: event.payment_id,
          kind: event.reason === 'wrong_mint' ? 'unmatched' : 'late',
          rail: 'crypto',
          railReference: event.signature,
          amountCentavos: null,
          amountBaseUnits: event.amount_base_units,
          detectedAt: new Date(event.detected_at),
        },
        payment?.status ?? null,
        event.reason,
      );
    });
}
