import type { DataSource } from 'typeorm';
import { PAGE_LIMIT_DEFAULT, type ListEvents, type Page, type PublicEvent } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { publicEventOf, retainedSince } from '../domain/public-event';
import { listEventsOf } from '../persistence';

/** A page of the business's events of the retention window, newest first, optionally of one type. */
export function handleListEvents(dataSource: DataSource) {
  return async (query: ListEvents): Promise<Page<PublicEvent>> => {
    const page = await listEventsOf(
      dataSource.manager,
      query.business_id,
      { type: query.type, since: retainedSince(new Date()) },
      { limit: query.limit ?? PAGE_LIMIT_DEFAULT, startingAfter: query.starting_after ?? null },
    );
    if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
    return { data: page.rows.map(publicEventOf), has_more: page.hasMore };
  };
}
