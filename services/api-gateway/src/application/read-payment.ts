import type { PaymentView } from '@gateway/contracts';
import { counter } from '@gateway/observability';
import { findPaymentCopy } from '../persistence';
import { keepPaymentCopy } from './keep-payment-copy';
import { copyAnswers, isOpen, type PaymentCopies } from './shared/payment-copies';

const reads = counter(
  'gateway_payment_reads_total',
  'Reads of one payment, by where they were answered from: the gateway copy, or the payment service (no copy, a change or refund in flight, a copy too old, an open payment while the events lag or without its instructions)',
  ['answered_from'],
);
reads.inc({ answered_from: 'copy' }, 0);
reads.inc({ answered_from: 'payment_service' }, 0);

/**
 * Answers a read of one of the business's payments from the gateway's copy (docs/adr/0042-gateway-payment-read-model.md),
 * and from the payment service (`readFromOwner`, whose answer becomes the copy) when the copy cannot answer or cannot
 * be read (the gateway's database away): none is held (another business's payment, one not seen yet, a copy lost), a
 * change or a refund of the payment is in flight, the copy is older than `maxAgeMs` (and so is the change feed's last
 * read to its end), or the payment is open and either the events lag behind (the copy could trail a webhook already
 * sent) or the copy lacks the instructions to show again (a payment made by the checkout service, whose event carries
 * none).
 */
export async function readPayment(
  copies: PaymentCopies,
  businessId: string,
  paymentId: string,
  readFromOwner: () => Promise<PaymentView>,
): Promise<PaymentView> {
  const copy = await findPaymentCopy(copies.dataSource.manager, businessId, paymentId).catch(() => null);
  if (copy && copyAnswers(copies, copy, Date.now()) && (copy.instructions !== null || !isOpen(copy.record))) {
    reads.inc({ answered_from: 'copy' });
    return copy.instructions === null
      ? { payment: copy.record }
      : { payment: copy.record, [copy.record.method]: copy.instructions };
  }
  reads.inc({ answered_from: 'payment_service' });
  const view = await readFromOwner();
  if (view.payment.business_id === businessId) await keepPaymentCopy(copies, view);
  return view;
}
