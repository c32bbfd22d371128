import { In, type DataSource } from 'typeorm';
import {
  pageRequest,
  type ListAllReceivedFunds,
  type OperatorReceivedFundsItem,
  type Page,
} from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toOperatorReceivedFundsItem } from '../domain/funds';
import { PaymentEntity, listAllReceivedFunds, returnsElsewhere } from '../persistence';

/**
 * The operator's list of money kept outside the happy path across every business (newest first, a page at a time),
 * of one kind and status when asked: `unreadable` lists the transactions the watcher has not been able to read yet,
 * each with the payment and business it is held for.
 */
export function handleListAllReceivedFunds(dataSource: DataSource) {
  return async (query: ListAllReceivedFunds): Promise<Page<OperatorReceivedFundsItem>> => {
    const page = await listAllReceivedFunds(
      dataSource.manager,
      { kind: query.kind, status: query.status },
      pageRequest(query),
    );
    const rows = page?.rows ?? [];
    const paymentIds = [...new Set(rows.map((row) => row.paymentId))];
    const payments = new Map(
      (await dataSource.manager.findBy(PaymentEntity, { id: In(paymentIds) })).map((p) => [p.id, p]),
    );
    const elsewhere = await returnsElsewhere(
      dataSource.manager,
      rows.map((row) => row.fundsId),
    );
    return pageReply(page, (row) => {
      // Money naming a payment this service does not know (kept as unmatched) belongs to no business yet.
      return toOperatorReceivedFundsItem(
        row,
        payments.get(row.paymentId) ?? null,
        elsewhere.get(row.fundsId),
      );
    });
  };
}
