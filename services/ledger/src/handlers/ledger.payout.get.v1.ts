import type { DataSource } from 'typeorm';
import type { GetPayout, PayoutRecord } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toPayoutRecord } from '../domain/payout';
import { findPayout } from '../persistence';

/** One of the business's payouts; another business's is NOT_FOUND, as one that does not exist. */
export function handleGetPayout(dataSource: DataSource) {
  return async (query: GetPayout): Promise<PayoutRecord> => {
    const payout = await findPayout(dataSource.manager, query.payout_id);
    if (!payout || payout.businessId !== query.business_id)
      throw new CommandError('NOT_FOUND', 'Saque não encontrado.');
    return toPayoutRecord(payout);
  };
}
