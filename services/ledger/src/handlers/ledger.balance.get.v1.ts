import type { DataSource } from 'typeorm';
import type { Balance, GetBalance } from '@gateway/contracts';
import { toBalance } from '../domain/balance-record';
import { findBalance } from '../persistence';

/** The business's four balances; zeros for a business no money has moved for yet. */
export function handleGetBalance(dataSource: DataSource) {
  return async (query: GetBalance): Promise<Balance> =>
    toBalance(query.business_id, await findBalance(dataSource.manager, query.business_id));
}
