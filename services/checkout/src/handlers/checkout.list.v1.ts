import type { DataSource } from 'typeorm';
import { pageRequest, type Checkout, type ListCheckouts, type Page } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toCheckout } from '../domain/records';
import { findCheckoutPage } from '../persistence';

/** The calling business's checkouts, newest first, a page at a time (their sessions are read per checkout). */
export function handleListCheckouts(dataSource: DataSource) {
  return async (query: ListCheckouts): Promise<Page<Checkout>> => {
    const page = await findCheckoutPage(dataSource.manager, query.business_id, pageRequest(query));
    return pageReply(page, toCheckout);
  };
}
