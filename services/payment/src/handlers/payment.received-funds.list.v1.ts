import type { DataSource } from 'typeorm';
import { pageRequest, type ListReceivedFunds, type Page, type ReceivedFundsItem } from '@gateway/contracts';
import { CommandError, pageReply } from '@gateway/messaging';
import { toReceivedFundsItem, tokenDecimalsOf } from '../domain/funds';
import { findPayment, listReceivedFundsOf, returnsElsewhere } from '../persistence';

/**
 * Lists the money kept for a payment of the calling business outside its happy path (late, excess, partial,
 * unmatched), newest first, a page at a time, each with whether it went back to the payer; another business's
 * payment is NOT_FOUND.
 */
export function handleListReceivedFunds(dataSource: DataSource) {
  return async (query: ListReceivedFunds): Promise<Page<ReceivedFundsItem>> => {
    const payment = await findPayment(dataSource.manager, query.payment_id, query.business_id);
    if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    const decimals = tokenDecimalsOf(payment.instructions);
    const page = await listReceivedFundsOf(dataSource.manager, payment.id, pageRequest(query));
    const elsewhere = await returnsElsewhere(dataSource.manager, page?.rows.map((row) => row.fundsId) ?? []);
    return pageReply(page, (row) => toReceivedFundsItem(row, decimals, elsewhere.get(row.fundsId)));
  };
}
