import type { DataSource } from 'typeorm';
import type { PaymentView } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { storePaymentCopy } from '../persistence';

/**
 * Keeps what the payment service just answered (a create, a change, a cancel, a read) as the gateway's copy, so that
 * a read right after it is answered from the copy and sees it. The answer goes to the client whatever happens here: a
 * copy that could not be stored is read again from the payment service when it is asked for (a change marked it stale
 * before it was sent, see `markPaymentChanging`).
 */
export async function keepPaymentCopy(
  dataSource: DataSource,
  view: PaymentView,
  logger: Logger,
): Promise<void> {
  try {
    await storePaymentCopy(dataSource.manager, view.payment, view.pix ?? view.crypto ?? null, true);
  } catch (err) {
    logger.warn({ payment_id: view.payment.payment_id, err: String(err) }, 'payment copy not stored');
  }
}
