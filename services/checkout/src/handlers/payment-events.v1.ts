import { splitName, type PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { applyPaymentOutcome } from '../application/apply-payment-outcome';
import { isPaymentOutcomeEvent } from '../domain/session-status';

/**
 * Handles `payment.*.v1`: an outcome (confirmed, expired, failed, cancelled) moves the session that started the
 * payment (see applyPaymentOutcome). A payment's creation says nothing about its session, which the start command
 * already recorded (it reaches a queue bound before the checkout service listed the outcomes it follows).
 */
export function handlePaymentEvent(uow: UnitOfWork) {
  return async (payload: PaymentEventPayload, context: MessageContext): Promise<void> => {
    const event = splitName(context.envelope.name).type;
    if (!isPaymentOutcomeEvent(event)) return;
    await applyPaymentOutcome(uow, payload.payment.payment_id, event, context);
  };
}
