import type { DataSource } from 'typeorm';
import { pageRequest, type ListEvents, type Page, type PublicEvent } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { publicEventOf, retainedSince } from '../domain/public-event';
import { listEventsOf } from '../persistence';

/** A page of the business's events of the retention window, newest first, optionally of one type and one payment. */
export function handleListEvents(dataSource: DataSource) {
  return async (query: ListEvents): Promise<Page<PublicEvent>> => {
    const page = await listEventsOf(
      dataSource.manager,
      query.business_id,
      { type: query.type, paymentId: query.payment_id, since: retainedSince(new Date()) },
      pageRequest(query),
    );
    return pageReply(page, publicEventOf);
  };
}
