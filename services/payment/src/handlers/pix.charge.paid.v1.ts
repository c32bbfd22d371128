import type { PixChargePaid } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { applyPixChargePaid } from '../settlement/rail-outcomes';

/** A PIX arrived for the payment's charge: decided under the payment's row lock (see applyPixChargePaid). */
export function handlePixChargePaid(uow: UnitOfWork) {
  return async (event: PixChargePaid, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) => applyPixChargePaid(tx, event, context.logger));
}
