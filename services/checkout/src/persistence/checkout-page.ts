import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { CheckoutEntity } from './checkout.entity';

/** A page of the business's checkouts, newest first; undefined when `startingAfter` is not one of them. */
export function findCheckoutPage(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<CheckoutEntity> | undefined> {
  return newestCreatedPage(manager, CheckoutEntity, { business_id: businessId }, page);
}
