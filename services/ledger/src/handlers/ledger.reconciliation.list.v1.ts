import type { DataSource } from 'typeorm';
import { pageRequest, type ListReconciliations, type Page, type Reconciliation } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { listReconciliationsPage } from '../persistence';

/** Reconciliation runs, newest first, a page at a time; a cursor that names no run is refused. */
export function handleListReconciliations(dataSource: DataSource) {
  return async (query: ListReconciliations): Promise<Page<Reconciliation>> =>
    pageReply(await listReconciliationsPage(dataSource.manager, pageRequest(query)), (run) => run);
}
