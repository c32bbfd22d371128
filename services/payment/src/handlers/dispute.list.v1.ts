import type { DataSource } from 'typeorm';
import { pageRequest, type DisputeRecord, type ListDisputes, type Page } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toDisputeRecord } from '../domain/dispute';
import { listDisputesOf } from '../persistence';

/** A page of the business's disputes, newest first. */
export function handleListDisputes(dataSource: DataSource) {
  return async (query: ListDisputes): Promise<Page<DisputeRecord>> => {
    const page = await listDisputesOf(dataSource.manager, query.business_id, pageRequest(query));
    return pageReply(page, toDisputeRecord);
  };
}
