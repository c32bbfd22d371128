import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import type { StoredCustomer } from '../domain/customer-record';
import { CustomerEntity } from './customer.entity';

/** Inserts a new customer (its creation time is the database's). */
export function saveCustomer(
  manager: EntityManager,
  customer: Omit<StoredCustomer, 'createdAt'>,
): Promise<CustomerEntity> {
  return manager.save(manager.create(CustomerEntity, customer));
}

/** The business's customer, or null (another business's customer is not found either). */
export function findCustomer(
  manager: EntityManager,
  businessId: string,
  customerId: string,
): Promise<CustomerEntity | null> {
  return manager.findOne(CustomerEntity, { where: { id: customerId, businessId } });
}

/**
 * A page of the business's customers (only those with `email`, as stored, when given), newest first; undefined when
 * `startingAfter` is not one of the business's.
 */
export function listCustomersOf(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
  email?: string,
): Promise<Page<CustomerEntity> | undefined> {
  return newestCreatedPage(manager, CustomerEntity, { business_id: businessId }, page, (list) => {
    if (email !== undefined) list.andWhere('listed.email = :email', { email });
  });
}
