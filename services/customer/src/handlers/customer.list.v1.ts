import type { DataSource } from 'typeorm';
import { pageOf, pageRequest, type Customer, type ListCustomers, type Page } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toRecord } from '../domain/customer-record';
import { listCustomersOf } from '../persistence';

/** The calling business's customers, newest first, a page at a time; a cursor that is not one of them is refused. */
export function handleListCustomers(dataSource: DataSource) {
  return async (query: ListCustomers): Promise<Page<Customer>> => {
    const page = await listCustomersOf(dataSource.manager, query.business_id, pageRequest(query));
    if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
    return pageOf(page, toRecord);
  };
}
