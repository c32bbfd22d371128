import type { DataSource } from 'typeorm';
import type { GetRefund, RefundRecord } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toRefundRecord } from '../domain/refund';
import { findRefund } from '../persistence';

/** Reads a refund of the calling business; another business's is NOT_FOUND. */
export function handleGetRefund(dataSource: DataSource) {
  return async (query: GetRefund): Promise<RefundRecord> => {
    const refund = await findRefund(dataSource.manager, query.refund_id, query.business_id);
    if (!refund) throw new CommandError('NOT_FOUND', 'Reembolso não encontrado.');
    return toRefundRecord(refund);
  };
}
