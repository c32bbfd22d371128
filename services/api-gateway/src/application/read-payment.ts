import type { DataSource } from 'typeorm';
import { openPaymentStatuses, type PaymentView } from '@gateway/contracts';
import { counter } from '@gateway/observability';
import { findPaymentCopy, type PaymentCopy } from '../persistence';
import type { Logger } from '@gateway/observability';
import { keepPaymentCopy } from './keep-payment-copy';

const reads = counter(
  'gateway_payment_reads_total',
  'Reads of one payment, by where they were answered from: the gateway copy, or the payment service (no copy, a stale or too old one, or an open payment without its instructions)',
  ['answered_from'],
);
reads.inc({ answered_from: 'copy' }, 0);
reads.inc({ answered_from: 'payment_service' }, 0);

export interface ReadPaymentDeps {
  dataSource: DataSource;
  /** A copy stored longer ago than this is read again: the bound on staleness when an event is lost. */
  maxAgeMs: number;
  logger: Logger;
}

/**
 * Answers a read of one of the business's payments from the gateway's copy (docs/adr/0042-gateway-payment-read-model.md),
 * and from the payment service (`readFromOwner`, whose answer becomes the copy) when the copy cannot answer: none is
 * held (another business's payment, one not seen yet, a copy lost), it is marked stale (a change in flight, a refund
 * announced without its record), it is older than `maxAgeMs`, a refund of the payment is in flight, or the payment is
 * open and the copy lacks the instructions to show again (a payment made by the checkout service, whose event carries
 * none).
 */
export async function readPayment(
  deps: ReadPaymentDeps,
  businessId: string,
  paymentId: string,
  readFromOwner: () => Promise<PaymentView>,
): Promise<PaymentView> {
  const copy = await findPaymentCopy(deps.dataSource.manager, businessId, paymentId);
  if (copy && answerable(copy, deps.maxAgeMs)) {
    reads.inc({ answered_from: 'copy' });
    return copy.instructions === null
      ? { payment: copy.record }
      : { payment: copy.record, [copy.record.method]: copy.instructions };
  }
  reads.inc({ answered_from: 'payment_service' });
  const view = await readFromOwner();
  if (view.payment.business_id === businessId) await keepPaymentCopy(deps.dataSource, view, deps.logger);
  return view;
}

function answerable(copy: PaymentCopy, maxAgeMs: number): boolean {
  if (copy.stale || copy.ageMs > maxAgeMs) return false;
  // A refund in flight changes what the payment says it returned, with no payment event: read until it settles.
  if ((copy.record.refund_reserved_centavos ?? 0) !== (copy.record.refunded_centavos ?? 0)) return false;
  const open = (openPaymentStatuses as readonly string[]).includes(copy.record.status);
  return !open || copy.instructions !== null;
}
