import type { DataSource } from 'typeorm';
import type { GetReconciliation, Reconciliation } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { findReconciliation } from '../persistence';

/** A reconciliation run and its report; NOT_FOUND for an id no run has. */
export function handleGetReconciliation(dataSource: DataSource) {
  return async (query: GetReconciliation): Promise<Reconciliation> => {
    const run = await findReconciliation(dataSource.manager, query.reconciliation_id);
    if (run === null) throw new CommandError('NOT_FOUND', 'no such reconciliation');
    return run;
  };
}
