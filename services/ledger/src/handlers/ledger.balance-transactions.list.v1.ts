import type { DataSource } from 'typeorm';
import {
  pageRequest,
  type BalanceTransaction,
  type ListBalanceTransactions,
  type Page,
} from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toBalanceTransaction } from '../domain/balance-record';
import { listBalanceTransactionsOf } from '../persistence';

/**
 * The calling business's balance transactions, newest first (oldest first for a statement), filtered by type and
 * creation time, a page at a time; a cursor that is not one of them is refused.
 */
export function handleListBalanceTransactions(dataSource: DataSource) {
  return async (query: ListBalanceTransactions): Promise<Page<BalanceTransaction>> => {
    const page = await listBalanceTransactionsOf(
      dataSource.manager,
      {
        businessId: query.business_id,
        type: query.type ?? null,
        createdGte: query.created_gte ? new Date(query.created_gte) : null,
        createdLt: query.created_lt ? new Date(query.created_lt) : null,
        oldestFirst: query.oldest_first === true,
      },
      pageRequest(query),
    );
    return pageReply(page, toBalanceTransaction);
  };
}
