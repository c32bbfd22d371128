import type { CheckoutSession } from '@gateway/contracts';

export type SessionStatus = CheckoutSession['status'];
/** The public payment events that end a payment, and so the session that started it. */
export type PaymentOutcomeEvent =
  'payment.confirmed' | 'payment.expired' | 'payment.failed' | 'payment.cancelled';

const STATUS_AFTER: Readonly<Record<PaymentOutcomeEvent, SessionStatus>> = {
  'payment.confirmed': 'paid',
  'payment.expired': 'expired',
  'payment.failed': 'failed',
  'payment.cancelled': 'cancelled',
};

/** Whether a public payment event (`payment.confirmed`) ends the payment; `payment.created` does not. */
export function isPaymentOutcomeEvent(event: string): event is PaymentOutcomeEvent {
  return Object.hasOwn(STATUS_AFTER, event);
}

/** Once its payment has ended, a session keeps that outcome: later or replayed events never change it. */
export function isFinalSessionStatus(status: SessionStatus): boolean {
  return status !== 'initiated';
}

/** The session status after a payment outcome event: it follows the payment unless the session already ended. */
export function nextSessionStatus(current: SessionStatus, event: PaymentOutcomeEvent): SessionStatus {
  return isFinalSessionStatus(current) ? current : STATUS_AFTER[event];
}
