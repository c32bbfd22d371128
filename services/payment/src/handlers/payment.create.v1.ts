import type { CreatePayment, PaymentView } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { createPaymentOnRail, type CreatePaymentDeps } from '../application/create-payment';

/** Creates a payment on its rail; a redelivered or retried create answers what the first did (inbox). */
export function handleCreatePayment(deps: CreatePaymentDeps) {
  return async (command: CreatePayment, context: MessageContext): Promise<PaymentView> =>
    createPaymentOnRail(deps, command, context);
}
