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
 * entries, the business's balances, its balance transaction and, for money credited out of suspense, its settlement.
 * All or nothing. (A paid payment, which also makes its settlement, is posted in one statement: `postPaymentJournal`.)
 */
export async function writeJournal(
  manager: EntityManager,
  journalId: number,
  posting: Posting,
): Promise<void> {
  await insertEntries(manager, journalId, posting.lines);
  await applyBalanceDeltas(manager, posting.businessId, posting.deltas);
  if (posting.balanceTransaction === null) return;
  const balanceTransactionId = newPublicId('btx');
  await insertBalanceTransaction(manager, {
    ...posting.balanceTransaction,
    id: balanceTransactionId,
    businessId: posting.businessId,
    journalId,
  });
  if (posting.settlement !== null) await insertSettlement(manager, posting.settlement, balanceTransactionId);
}
