import type { EntityManager } from 'typeorm';
import { newPublicId } from '@gateway/contracts';
import type { Posting } from '../../domain/posting-rules';
import { applyBalanceDeltas, insertBalanceTransaction, insertEntries } from '../../persistence';

/**
 * Writes a posting under the journal whose cause key the caller has just claimed, in the caller's transaction:
 * entries, the business's balances and its balance transaction. All or nothing. (A paid payment, which also makes
 * its settlement, is posted in one statement: `postPaymentJournal`.)
 */
export async function writeJournal(
  manager: EntityManager,
  journalId: number,
  posting: Posting,
): Promise<void> {
  await insertEntries(manager, journalId, posting.lines);
  await applyBalanceDeltas(manager, posting.businessId, posting.deltas);
  if (posting.balanceTransaction === null) return;
  await insertBalanceTransaction(manager, {
    ...posting.balanceTransaction,
    id: newPublicId('btx'),
    businessId: posting.businessId,
    journalId,
  });
}
