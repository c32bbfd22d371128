import type { DataSource } from 'typeorm';
import type { DisputeRecord, GetDispute } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toDisputeRecord } from '../domain/dispute';
import { findDispute } from '../persistence';

/** Reads a dispute of the calling business; another business's is NOT_FOUND. */
export function handleGetDispute(dataSource: DataSource) {
  return async (query: GetDispute): Promise<DisputeRecord> => {
    const dispute = await findDispute(dataSource.manager, query.dispute_id, query.business_id);
    if (!dispute) throw new CommandError('NOT_FOUND', 'Disputa não encontrada.');
    return toDisputeRecord(dispute);
  };
}
