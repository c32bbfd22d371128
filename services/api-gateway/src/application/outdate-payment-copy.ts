import { markPaymentCopyStale } from '../persistence';
import type { PaymentCopies } from './shared/payment-copies';

/**
 * Marks the gateway's copy of a payment, so that reads go to the payment service until the copy holds a newer version
 * (or for `maxAgeMs` at most):
 *
 * - before a change is sent (PATCH, cancel, a refund): until the change's answer or its event is stored, a read never
 *   answers what was there before a change that was answered. A failure here fails the change before it is sent;
 * - when an event says the payment changed without carrying its record (`refund.succeeded`), or carries a record
 *   without a version (a payment service of an earlier release).
 */
export async function outdatePaymentCopy(
  copies: PaymentCopies,
  businessId: string,
  paymentId: string,
): Promise<void> {
  await markPaymentCopyStale(copies.dataSource.manager, businessId, paymentId, copies.maxAgeMs);
}
