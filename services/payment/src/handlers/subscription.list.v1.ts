import type { DataSource } from 'typeorm';
import { pageRequest, type ListSubscriptions, type Page, type SubscriptionRecord } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { wallToday } from '../application/shared/subscription-events';
import { toSubscriptionRecord } from '../domain/subscription';
import { listSubscriptionsOf } from '../persistence';

/**
 * Lists the calling business's subscriptions, newest first, a page at a time, narrowed by status and customer;
 * `starting_after` must be one of its own subscriptions (a position, even one the filters leave out).
 */
export function handleListSubscriptions(dataSource: DataSource) {
  return async (query: ListSubscriptions): Promise<Page<SubscriptionRecord>> => {
    const page = await listSubscriptionsOf(
      dataSource.manager,
      query.business_id,
      { status: query.status, customerId: query.customer_id },
      pageRequest(query),
    );
    const today = wallToday();
    return pageReply(page, (subscription) => toSubscriptionRecord(subscription, today));
  };
}
