import type { PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import {
  removeCancelledCharge,
  type RemoveCancelledChargeDeps,
} from '../application/remove-cancelled-charge';

export function handlePaymentCancelled(deps: RemoveCancelledChargeDeps) {
  return async (event: PaymentEventPayload, context: MessageContext): Promise<void> => {
    const { payment } = event;
    // Crypto requests are closed by the watcher.
    if (payment.method !== 'pix') return;
    await removeCancelledCharge(deps, payment.payment_id, context);
  };
}
