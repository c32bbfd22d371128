import { EMBEDDED_SESSIONS_MAX, type Checkout } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DataSource } from 'typeorm';
import { toCheckout, toSession } from '../domain/records';
import { findBusinessCheckout, findSessionPage } from '../persistence';

/**
 * A business's checkout with its newest sessions (at most EMBEDDED_SESSIONS_MAX, `sessions_has_more` when there are
 * older ones); another business's checkout is not found (no leak).
 */
export function handleGetCheckout(dataSource: DataSource) {
  return async (query: { business_id: string; checkout_id: string }): Promise<Checkout> => {
    const checkout = await findBusinessCheckout(dataSource.manager, query.business_id, query.checkout_id);
    if (!checkout) throw new CommandError('NOT_FOUND', 'Checkout não encontrado.');
    const page = await findSessionPage(dataSource.manager, checkout.id, {
      limit: EMBEDDED_SESSIONS_MAX,
      startingAfter: null,
    });
    return {
      ...toCheckout(checkout),
      sessions: page?.rows.map(toSession) ?? [],
      sessions_has_more: page?.hasMore ?? false,
    };
  };
}
