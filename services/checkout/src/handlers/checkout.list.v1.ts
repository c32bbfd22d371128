import type { DataSource } from 'typeorm';
import { PAGE_LIMIT_DEFAULT, type Checkout, type ListCheckouts, type Page } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { findCheckoutPage, toCheckout } from '../persistence';

/** The calling business's checkouts, newest first, a page at a time (their sessions are read per checkout). */
export function handleListCheckouts(dataSource: DataSource) {
  return async (query: ListCheckouts): Promise<Page<Checkout>> => {
    const page = await findCheckoutPage(dataSource.manager, query.business_id, {
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      startingAfter: query.starting_after ?? null,
    });
    if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
    return { data: page.rows.map(toCheckout), has_more: page.hasMore };
  };
}
