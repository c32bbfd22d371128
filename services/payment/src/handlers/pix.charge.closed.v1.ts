import type { PixChargeClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { pixChargeClosure } from '../rails';
import { applyRailClosure } from '../settlement/rail-outcomes';

/** The PIX charge ended unpaid: a rail closure, decided under the payment's row lock. */
export function handlePixChargeClosed(uow: UnitOfWork) {
  return async (event: PixChargeClosed, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) =>
      applyRailClosure(tx, pixChargeClosure(event.payment_id, event), context.logger),
    );
}
