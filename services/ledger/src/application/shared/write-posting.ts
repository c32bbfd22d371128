import type { EntityManager } from 'typeorm';
import type { PlatformPosting, Posting } from '../../domain/posting-rules';
import { claimJournal, insertEntries } from '../../persistence';
import { writeJournal } from './write-journal';

/**
 * Claims the posting's cause key and writes it, in the caller's transaction: a business's posting with its balances
 * and balance transaction (writeJournal), a platform posting as its entries alone. Answers the journal's id, or null
 * when a journal with that key exists (posted before: nothing is written).
 */
export async function claimAndWrite(
  manager: EntityManager,
  posting: Posting | PlatformPosting,
): Promise<number | null> {
  const journalId = await claimJournal(manager, posting);
  if (journalId === null) return null;
  if (posting.businessId === null) await insertEntries(manager, journalId, posting.lines);
  else await writeJournal(manager, journalId, posting as Posting);
  return journalId;
}
