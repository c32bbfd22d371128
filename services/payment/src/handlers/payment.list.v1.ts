import type { DataSource } from 'typeorm';
import { pageRequest, type ListPayments, type Page, type PaymentRecord } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toRecord } from '../domain/payment-record';
import { listPaymentsOf } from '../persistence';

/**
 * Lists the calling business's payments, newest first, a page at a time, narrowed by status, method, creation
 * time and subscription. `starting_after` may be any of the business's payments, even one the filters leave out now (paid since the
 * last page): it marks a position. Another business's payment, or none, is refused.
 */
export function handleListPayments(dataSource: DataSource) {
  return async (query: ListPayments): Promise<Page<PaymentRecord>> => {
    const page = await listPaymentsOf(
      dataSource.manager,
      query.business_id,
      {
        status: query.status,
        method: query.method,
        createdGte: query.created_gte === undefined ? undefined : new Date(query.created_gte),
        createdLt: query.created_lt === undefined ? undefined : new Date(query.created_lt),
        subscriptionId: query.subscription_id,
      },
      pageRequest(query),
    );
    return pageReply(page, toRecord);
  };
}
