import type { CheckoutSessionStatus } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { findCheckoutBySlug, findSessionOfCheckout } from '../persistence';

/** What the hosted page polls: the session's status, and where to send the buyer once it is paid. */
export function handleGetCheckoutSessionStatus(dataSource: DataSource) {
  return async (query: { slug: string; session_id: string }): Promise<CheckoutSessionStatus> => {
    const checkout = await findCheckoutBySlug(dataSource.manager, query.slug);
    const session = checkout
      ? await findSessionOfCheckout(dataSource.manager, checkout.id, query.session_id)
      : null;
    if (!checkout || !session) throw new CommandError('NOT_FOUND', 'Sessão não encontrada.');
    return { status: session.status, return_url: session.status === 'paid' ? checkout.returnUrl : null };
  };
}
