import type { PaymentView } from '@gateway/contracts';
import { copyRecord, type PaymentCopies } from './shared/payment-copies';

/**
 * Keeps what the payment service just answered (a create, a change, a cancel, a read) as the gateway's copy, so that
 * a read right after it is answered from the copy and sees it. The answer goes to the client whatever happens here: a
 * copy that could not be stored is read from the payment service when it is asked for (a change marked it first, see
 * `outdatePaymentCopy`).
 */
export async function keepPaymentCopy(copies: PaymentCopies, view: PaymentView): Promise<void> {
  try {
    await copyRecord(copies, view.payment, view.pix ?? view.crypto ?? null, null);
  } catch (err) {
    copies.logger.warn({ payment_id: view.payment.payment_id, err: String(err) }, 'payment copy not stored');
  }
}
