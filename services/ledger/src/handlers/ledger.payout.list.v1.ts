import type { DataSource } from 'typeorm';
import { pageRequest, type ListPayouts, type Page, type PayoutRecord } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toPayoutRecord } from '../domain/payout';
import { listPayoutsOf } from '../persistence';

/** The business's payouts, newest first, a page at a time; a cursor that is not one of them is refused. */
export function handleListPayouts(dataSource: DataSource) {
  return async (query: ListPayouts): Promise<Page<PayoutRecord>> =>
    pageReply(await listPayoutsOf(dataSource.manager, query.business_id, pageRequest(query)), toPayoutRecord);
}
