import type { CryptoRequestClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { decideClosure } from '../domain/settlement';
import { recordReceivedFunds, transitionPayment } from '../persistence';

/** The crypto window ended: expired with nothing, failed UNDERPAID with a partial transfer, or failed. */
export function handleCryptoRequestClosed(uow: UnitOfWork) {
  return async (event: CryptoRequestClosed, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const partial = BigInt(event.received_base_units) > 0n;
      if (partial) {
        await recordReceivedFunds(tx.manager, {
          paymentId: event.payment_id,
          kind: 'partial',
          rail: 'crypto',
          railReference: event.reference,
          amountCentavos: null,
          amountBaseUnits: event.received_base_units,
        });
      }
      const moved = await transitionPayment(tx, event.payment_id, decideClosure(event.reason, partial, null));
      if (!moved)
        context.logger.info({ payment_id: event.payment_id }, 'request closed for an ended payment');
    });
}
