import type { EntityManager } from 'typeorm';
import { newestFirstPage, type Page, type PageRequest } from '@gateway/persistence';
import { CheckoutEntity } from './checkout.entity';

/** A page of the business's checkouts, newest first; undefined when `startingAfter` is not one of them. */
export function findCheckoutPage(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<CheckoutEntity> | undefined> {
  const checkouts = manager
    .createQueryBuilder(CheckoutEntity, 'checkout')
    .where('checkout.business_id = :businessId', { businessId });
  return newestFirstPage(checkouts, { time: 'created_at', tiebreak: 'id', publicId: 'id' }, page);
}
