import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { CustomerEntity } from './customer.entity';

/** The business's customer, or null (another business's customer is not found either). */
export function findCustomer(
  manager: EntityManager,
  businessId: string,
  customerId: string,
): Promise<CustomerEntity | null> {
  return manager.findOne(CustomerEntity, { where: { id: customerId, businessId } });
}

/** A page of the business's customers, newest first; undefined when `startingAfter` is not one of them. */
export function listCustomersOf(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<CustomerEntity> | undefined> {
  return newestCreatedPage(manager, CustomerEntity, { business_id: businessId }, page);
}
