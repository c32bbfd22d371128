import type { PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { cancelTransferRequest } from '../application/cancel-transfer-request';

/** A cancelled crypto payment cancels its open transfer request (see cancelTransferRequest); other methods' are not ours. */
export function handlePaymentCancelled(uow: UnitOfWork) {
  return async (event: PaymentEventPayload, context: MessageContext): Promise<void> => {
    if (event.payment.method !== 'crypto') return;
    await cancelTransferRequest(uow, event.payment.payment_id, context);
  };
}
