import {
  PAGE_LIMIT_DEFAULT,
  type CheckoutSession,
  type ListCheckoutSessions,
  type Page,
} from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { CheckoutEntity, findSessionPage, toSession } from '../persistence';

/** A page of a business's checkout's sessions, newest first; another business's checkout is not found. */
export function handleListCheckoutSessions(dataSource: DataSource) {
  return async (query: ListCheckoutSessions): Promise<Page<CheckoutSession>> => {
    const checkout = await dataSource.manager.findOneBy(CheckoutEntity, {
      id: query.checkout_id,
      businessId: query.business_id,
    });
    if (!checkout) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
    const page = await findSessionPage(dataSource.manager, checkout.id, {
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      startingAfter: query.starting_after ?? null,
    });
    if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
    return { data: page.rows.map(toSession), has_more: page.hasMore };
  };
}
