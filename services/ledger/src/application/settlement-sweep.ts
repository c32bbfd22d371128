import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
import { BatchTask } from '@gateway/service-runtime';
import { settlementPosting } from '../domain/posting-rules';
import { claimDueSettlements, claimJournal, lockBalance, markSettled } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

export interface SettlementSweepOptions {
  intervalMs: number;
  logger: Logger;
  batchSize?: number;
  /** The clock (tests move it). */
  now?: () => Date;
}

/**
 * Moves every paid payment whose settlement delay is over from `pending` to `available`: a `settle:<payment_id>`
 * journal and its balance transaction flipped to `available`, per payment, at start (a restart catches up with what
 * fell due while the service was down) and on every interval. Sweeps running at once (two replicas) skip each other's
 * rows, and the journal's key makes a payment settle once whatever happens.
 */
export class SettlementSweep extends BatchTask {
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    options: SettlementSweepOptions,
  ) {
    super('settlement-sweep', options);
    this.now = options.now ?? (() => new Date());
  }

  async runOnce(): Promise<number> {
    let posted = 0;
    const taken = await this.dataSource.transaction(async (manager) => {
      posted = 0;
      const due = await claimDueSettlements(manager, this.now(), this.batchSize);
      // Balances locked in one order (by business) whoever sweeps: two sweeps never wait on each other in a cycle.
      const inLockOrder = [...due].sort((a, b) =>
        a.businessId < b.businessId ? -1 : a.businessId > b.businessId ? 1 : 0,
      );
      for (const settlement of inLockOrder) {
        // What the payment's refunds left of its net; nothing left writes no journal (and uses up no key).
        const posting = settlementPosting(settlement);
        if (posting !== null) {
          const journalId = await claimJournal(manager, {
            causeKey: posting.causeKey,
            kind: 'settlement',
            businessId: settlement.businessId,
          });
          if (journalId !== null) {
            await lockBalance(manager, settlement.businessId);
            await writeJournal(manager, journalId, posting);
            posted += 1;
          }
        }
        await markSettled(manager, settlement);
      }
      return due.length;
    });
    for (let i = 0; i < posted; i += 1) recordJournalPosted('settlement');
    return taken;
  }
}
