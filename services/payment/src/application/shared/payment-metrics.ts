import type { PaymentMethod } from '@gateway/contracts';
import { counter, histogram } from '@gateway/observability';
import type { PaymentEventName } from '../../domain/payment-status';

// Each is recorded after the transaction that made the change commits (Transaction.afterCommit), so a rollback, a
// lost race for the transition or a redelivered message counts nothing.

const paymentEvents = counter(
  'payment_events_total',
  'Payment transitions (the payment.* events emitted), by method and event: created, confirmed, expired, failed, cancelled',
  ['method', 'event'],
);

const createdToConfirmed = histogram(
  'payment_created_to_confirmed_seconds',
  'Time from a payment created to confirmed (paid), observed at its confirmation, by method',
  ['method'],
  [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
);

const refunds = counter(
  'payment_refunds_total',
  'Refunds by method and outcome: requested (opened and asked of the rail), succeeded, failed',
  ['method', 'outcome'],
);

/** One committed payment transition; a confirmation also times created -> confirmed. */
export function recordPaymentEvent(
  event: PaymentEventName,
  payment: { method: PaymentMethod; createdAt: Date; paidAt: Date | null },
): void {
  paymentEvents.inc({ method: payment.method, event });
  if (event === 'confirmed' && payment.paidAt)
    createdToConfirmed.observe(
      { method: payment.method },
      Math.max(0, (payment.paidAt.getTime() - payment.createdAt.getTime()) / 1000),
    );
}

export function recordRefund(method: PaymentMethod, outcome: 'requested' | 'succeeded' | 'failed'): void {
  refunds.inc({ method, outcome });
}
