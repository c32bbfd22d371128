import type { DataSource } from 'typeorm';
import { PAGE_LIMIT_DEFAULT, type Customer, type ListCustomers, type Page } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toRecord } from '../domain/customer-record';
import { listCustomersOf } from '../persistence';

/** The calling business's customers, newest first, a page at a time; a cursor that is not one of them is refused. */
export function handleListCustomers(dataSource: DataSource) {
  return async (query: ListCustomers): Promise<Page<Customer>> => {
    const page = await listCustomersOf(dataSource.manager, query.business_id, {
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      startingAfter: query.starting_after ?? null,
    });
    if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
    return { data: page.rows.map(toRecord), has_more: page.hasMore };
  };
}
