import type { Checkout } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { CheckoutEntity, SessionEntity, toCheckout, toSession } from '../persistence';

/** A business's checkout with its sessions, newest first; another business's checkout is not found (no leak). */
export function handleGetCheckout(dataSource: DataSource) {
  return async (query: { business_id: string; checkout_id: string }): Promise<Checkout> => {
    const checkout = await dataSource.manager.findOneBy(CheckoutEntity, {
      id: query.checkout_id,
      businessId: query.business_id,
    });
    if (!checkout) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
    const sessions = await dataSource.manager.find(SessionEntity, {
      where: { checkoutId: checkout.id },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
    return { ...toCheckout(checkout), sessions: sessions.map(toSession) };
  };
}
