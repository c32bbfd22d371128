import type { CheckoutSessionStatus } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { findCheckoutBySlug, findSessionOfCheckout } from '../persistence';

/**
 * What the hosted page polls: the session's status, and where to send the buyer once it is paid; with the payment and
 * its business, by which the gateway cancels it when the buyer goes back to the method choice.
 */
export function handleGetCheckoutSessionStatus(dataSource: DataSource) {
  return async (query: { slug: string; session_id: string }): Promise<CheckoutSessionStatus> => {
    const checkout = await findCheckoutBySlug(dataSource.manager, query.slug);
    const session = checkout
      ? await findSessionOfCheckout(dataSource.manager, checkout.id, query.session_id)
      : null;
    if (!checkout || !session) throw new CommandError('NOT_FOUND', 'Sessão não encontrada.');
    return {
      status: session.status,
      return_url: session.status === 'paid' ? checkout.returnUrl : null,
      payment_id: session.paymentId,
      business_id: checkout.businessId,
    };
  };
}
