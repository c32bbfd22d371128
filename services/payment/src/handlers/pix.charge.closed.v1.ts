import type { PixChargeClosed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { applyPixChargeClosed } from '../settlement/rail-outcomes';

/** The PIX charge ended unpaid: decided under the payment's row lock (see applyPixChargeClosed). */
export function handlePixChargeClosed(uow: UnitOfWork) {
  return async (event: PixChargeClosed, context: MessageContext): Promise<void> =>
    uow.once(context, (tx) => applyPixChargeClosed(tx, event, context.logger));
}
