import type { CheckoutSessionStatus } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { CheckoutEntity, SessionEntity } from '../persistence';

/** What the hosted page polls: the session's status, and where to send the buyer once it is paid. */
export function handleGetCheckoutSessionStatus(dataSource: DataSource) {
  return async (query: { slug: string; session_id: string }): Promise<CheckoutSessionStatus> => {
    const checkout = await dataSource.manager.findOneBy(CheckoutEntity, { slug: query.slug });
    const session = checkout
      ? await dataSource.manager.findOneBy(SessionEntity, { id: query.session_id, checkoutId: checkout.id })
      : null;
    if (!checkout || !session) throw new CommandError('NOT_FOUND', 'Sessão não encontrada.');
    return { status: session.status, return_url: session.status === 'paid' ? checkout.returnUrl : null };
  };
}
