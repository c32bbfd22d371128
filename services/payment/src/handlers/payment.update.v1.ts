import type { PaymentView, UpdatePayment } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { changeOpenPayment, type UpdatePaymentDeps } from '../application/update-payment';

/** Changes amount and/or metadata of an open payment; a redelivered command answers what the first did (inbox). */
export function handleUpdatePayment(deps: UpdatePaymentDeps) {
  return async (command: UpdatePayment, context: MessageContext): Promise<PaymentView> =>
    changeOpenPayment(deps, command, context);
}
