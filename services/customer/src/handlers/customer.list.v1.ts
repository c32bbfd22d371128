import type { DataSource } from 'typeorm';
import { pageRequest, type Customer, type ListCustomers, type Page } from '@gateway/contracts';
import { CommandError, pageReply } from '@gateway/messaging';
import { toRecord } from '../domain/customer-record';
import { normaliseEmail } from '../domain/email';
import { listCustomersOf } from '../persistence';

/**
 * The calling business's customers, newest first, a page at a time; a cursor that is not one of them is refused. With
 * `email`, only those with that address once normalised as stored (so `Maria@Loja.COM ` finds `Maria@loja.com`); an
 * address that is not one is INVALID_FIELDS.
 */
export function handleListCustomers(dataSource: DataSource) {
  return async (query: ListCustomers): Promise<Page<Customer>> => {
    const email = query.email === undefined ? undefined : normaliseEmail(query.email);
    if (email === null) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: email.');
    const page = await listCustomersOf(dataSource.manager, query.business_id, pageRequest(query), email);
    return pageReply(page, toRecord);
  };
}
