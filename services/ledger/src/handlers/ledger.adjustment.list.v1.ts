import type { DataSource } from 'typeorm';
import { pageRequest, type AdjustmentRecord, type ListAdjustments, type Page } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { listAdjustmentsPage } from '../persistence';

/** Operator adjustments, newest first, of one business or all; a cursor that names none of them is refused. */
export function handleListAdjustments(dataSource: DataSource) {
  return async (query: ListAdjustments): Promise<Page<AdjustmentRecord>> =>
    pageReply(
      await listAdjustmentsPage(dataSource.manager, {
        ...pageRequest(query),
        businessId: query.business_id ?? null,
      }),
      (adjustment) => adjustment,
    );
}
