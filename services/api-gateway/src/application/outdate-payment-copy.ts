import type { DataSource } from 'typeorm';
import { markPaymentCopyStale } from '../persistence';

/**
 * Marks the gateway's copy of a payment stale, so that the next read of it goes to the payment service (whose answer
 * becomes the copy again):
 *
 * - before a change is sent (PATCH, cancel): until the change's answer is stored, a read never answers what was there
 *   before a change that was answered, even if its answer never reaches the copy (the gateway stopped, the reply
 *   timed out). A failure here fails the change before it is sent;
 * - when an event says the payment changed without carrying its record (`refund.succeeded`: what refunds returned).
 */
export async function outdatePaymentCopy(
  dataSource: DataSource,
  businessId: string,
  paymentId: string,
): Promise<void> {
  await markPaymentCopyStale(dataSource.manager, businessId, paymentId);
}
