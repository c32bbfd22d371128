import type { PaymentChanged, PaymentEventPayload } from '@gateway/contracts';
import { histogram } from '@gateway/observability';
import { copyRecord, type PaymentCopies } from './shared/payment-copies';

const copyLag = histogram(
  'gateway_payment_copy_lag_seconds',
  'From a payment event (its occurred_at, the payment service clock) to its record stored in the gateway copy: how far a read answered from a copy trails the payment service while events flow',
  [],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);

/**
 * A `payment.*` event (or the internal `payment.changed`) carries the payment's record as it changed: it becomes the
 * gateway's copy unless the copy holds a newer version already (events and replies arrive in any order), known true as
 * of when the event occurred. Instructions are kept when the event carries none. A record without a version marks the
 * copy instead (a payment service of an earlier release). Whether the events keep up is recorded for the reads.
 */
export async function applyPaymentEvent(
  copies: PaymentCopies,
  event: PaymentEventPayload | PaymentChanged,
): Promise<void> {
  // Only `payment.changed` carries instructions; the outcome events carry none.
  const { pix, crypto } = event as Partial<PaymentChanged>;
  try {
    await copyRecord(copies, event.payment, pix ?? crypto ?? null, event.occurred_at);
  } catch (err) {
    copies.feed.failed(Date.now());
    throw err;
  }
  const lagMs = Math.max(0, Date.now() - Date.parse(event.occurred_at));
  copies.feed.applied(lagMs);
  if (event.payment.version !== undefined) copyLag.observe(lagMs / 1000);
}
