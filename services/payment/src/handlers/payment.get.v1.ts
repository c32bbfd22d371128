import type { DataSource } from 'typeorm';
import type { GetPayment, PaymentView } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toView } from '../domain/payment-record';
import { findPayment } from '../persistence';

/** Reads a payment of the calling business; another business's payment is NOT_FOUND, never FORBIDDEN. */
export function handleGetPayment(dataSource: DataSource) {
  return async (query: GetPayment): Promise<PaymentView> => {
    const payment = await findPayment(dataSource.manager, query.payment_id, query.business_id);
    if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    return toView(payment);
  };
}
