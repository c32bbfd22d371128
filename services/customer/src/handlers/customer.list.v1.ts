import type { DataSource } from 'typeorm';
import { pageRequest, type Customer, type ListCustomers, type Page } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toRecord } from '../domain/customer-record';
import { listCustomersOf } from '../persistence';

/** The calling business's customers, newest first, a page at a time; a cursor that is not one of them is refused. */
export function handleListCustomers(dataSource: DataSource) {
  return async (query: ListCustomers): Promise<Page<Customer>> => {
    const page = await listCustomersOf(dataSource.manager, query.business_id, pageRequest(query));
    return pageReply(page, toRecord);
  };
}
