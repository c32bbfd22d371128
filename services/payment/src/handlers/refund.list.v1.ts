import type { DataSource } from 'typeorm';
import { pageRequest, type ListRefunds, type Page, type RefundRecord } from '@gateway/contracts';
import { CommandError, pageReply } from '@gateway/messaging';
import { toRefundRecord } from '../domain/refund';
import { findPayment, listRefundsOf } from '../persistence';

/** A page of one of the business's payments' refunds, newest first; another business's payment is NOT_FOUND. */
export function handleListRefunds(dataSource: DataSource) {
  return async (query: ListRefunds): Promise<Page<RefundRecord>> => {
    const payment = await findPayment(dataSource.manager, query.payment_id, query.business_id);
    if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    const page = await listRefundsOf(dataSource.manager, payment.id, pageRequest(query));
    return pageReply(page, toRefundRecord);
  };
}
