import type { CancelPayment, PaymentView } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { cancelOpenPayment } from '../application/cancel-payment';

/** Cancels an open payment; a redelivered command answers what the first delivery did (inbox). */
export function handleCancelPayment(uow: UnitOfWork) {
  return async (command: CancelPayment, context: MessageContext): Promise<PaymentView> =>
    cancelOpenPayment(uow, command, context);
}
