import type { DataSource } from 'typeorm';
import type { Customer, GetCustomer } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toRecord } from '../domain/customer-record';
import { findCustomer } from '../persistence';

/** One of the calling business's customers; another business's is NOT_FOUND, like one that does not exist. */
export function handleGetCustomer(dataSource: DataSource) {
  return async (query: GetCustomer): Promise<Customer> => {
    const customer = await findCustomer(dataSource.manager, query.business_id, query.customer_id);
    if (!customer) throw new CommandError('NOT_FOUND', 'Cliente não encontrado.');
    return toRecord(customer);
  };
}
