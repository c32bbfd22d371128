import type { PixChargeClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { decideClosure } from '../domain/settlement';
import { hasReceivedFunds, transitionPayment } from '../persistence';

/** The PIX charge ended unpaid: expired (failed UNDERPAID if a partial PIX came in) or removed by the PSP. */
export function handlePixChargeClosed(uow: UnitOfWork) {
  return async (event: PixChargeClosed, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const partial = await hasReceivedFunds(tx.manager, event.payment_id, 'partial');
      const outcome = decideClosure(event.reason, partial, event.detail);
      const moved = await transitionPayment(tx, event.payment_id, outcome);
      if (!moved) context.logger.info({ payment_id: event.payment_id }, 'charge closed for an ended payment');
    });
}
