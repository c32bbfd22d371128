import type { EntityManager } from 'typeorm';
import { newPublicId } from '@gateway/contracts';
import type { Posting } from '../../domain/posting-rules';
import {
  applyBalanceDeltas,
  insertBalanceTransaction,
  insertEntries,
  insertSettlement,
} from '../../persistence';

/**
 * Writes a posting under the journal whose cause key the caller has just claimed, in the caller's transaction:
 * entries, the business's balances, its balance transaction and the settlement it waits for. All or nothing.
 */
export async function writeJournal(
  manager: EntityManager,
  journalId: number,
  posting: Posting,
): Promise<void> {
  await insertEntries(manager, journalId, posting.lines);
  await applyBalanceDeltas(manager, posting.businessId, posting.deltas);
  if (posting.balanceTransaction === null) return;
  const id = newPublicId('btx');
  await insertBalanceTransaction(manager, {
    ...posting.balanceTransaction,
    id,
    businessId: posting.businessId,
    journalId,
  });
  if (posting.settlement !== null) await insertSettlement(manager, posting.settlement, id);
}
