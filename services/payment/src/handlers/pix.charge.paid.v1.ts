import type { PixChargePaid } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { pixChargePaidFunds } from '../rails';
import { applyFundsReceived } from '../settlement/rail-outcomes';

/** A PIX arrived for the payment's charge: funds received, decided under the payment's row lock. */
export function handlePixChargePaid(uow: UnitOfWork) {
  return async (event: PixChargePaid, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) => applyFundsReceived(tx, pixChargePaidFunds(event), context.logger));
}
