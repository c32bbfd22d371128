import { pageRequest, type CheckoutSession, type ListCheckoutSessions, type Page } from '@gateway/contracts';
import { CommandError, pageReply } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { toSession } from '../domain/records';
import { findBusinessCheckout, findSessionPage } from '../persistence';

/** A page of a business's checkout's sessions, newest first; another business's checkout is not found. */
export function handleListCheckoutSessions(dataSource: DataSource) {
  return async (query: ListCheckoutSessions): Promise<Page<CheckoutSession>> => {
    const checkout = await findBusinessCheckout(dataSource.manager, query.business_id, query.checkout_id);
    if (!checkout) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
    const page = await findSessionPage(dataSource.manager, checkout.id, pageRequest(query));
    return pageReply(page, toSession);
  };
}
