import type { DataSource } from 'typeorm';
import type { GetEvent, PublicEvent } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { publicEventOf, retainedSince } from '../domain/public-event';
import { findEvent } from '../persistence';

/** One of the business's events of the retention window; another business's, or an older one, is NOT_FOUND. */
export function handleGetEvent(dataSource: DataSource) {
  return async (query: GetEvent): Promise<PublicEvent> => {
    const event = await findEvent(
      dataSource.manager,
      query.event_id,
      query.business_id,
      retainedSince(new Date()),
    );
    if (!event) throw new CommandError('NOT_FOUND', 'Evento não encontrado.');
    return publicEventOf(event);
  };
}
