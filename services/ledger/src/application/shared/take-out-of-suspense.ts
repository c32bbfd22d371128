import type { DataSource } from 'typeorm';
import { NotYetError } from '@gateway/messaging';
import type { FundsAssigned, FundsReturned } from '@gateway/contracts';
import { storedHoldingAccount } from '../../domain/accounts';
import {
  creditedBusiness,
  fundsReturnedPosting,
  isSettlementDue,
  suspenseCreditPosting,
  type DueSettlement,
  type SettlementDelays,
} from '../../domain/posting-rules';
import { closeSuspenseFunds, lockBalance, lockSuspenseFunds } from '../../persistence';
import { recordJournalPosted } from './ledger-metrics';
import { claimAndWrite } from './write-posting';

export interface SuspenseOutDeps {
  dataSource: DataSource;
  /** The settlement delays of a payment of each rail: money credited out of suspense waits as long. */
  delays: SettlementDelays;
  /** Called after a credit committed whose settlement is due already (the sweep's nudge: it settles at once). */
  afterPosting?: () => void;
}

/**
 * One sum of money leaves suspense, once (`funds:out:<money_key>`, whichever record and event say so): back to the
 * payer by a refund (out of the platform's holdings), or credited to a business (returned by hand, assigned by the
 * operator) through `suspenseCreditPosting`, the one rule that credits it as a payment of its rail would be. Money whose
 * coming in is not posted yet (events of one producer handled out of order) waits for it: `NotYetError`, which the
 * broker retries with backoff for its whole retry window, never as a bug out of attempts. Money booked without a value leaves the record and nothing else when returned; it cannot
 * be credited (an assignment of it fails, and is parked for the operator).
 */
export async function takeOutOfSuspense(
  deps: SuspenseOutDeps,
  event: FundsReturned | FundsAssigned,
): Promise<{ posted: boolean }> {
  const assigned = !('returned_by' in event);
  const credited = creditedBusiness(event);
  const status = assigned ? 'assigned' : 'returned';
  const at = new Date(event.occurred_at);
  let settlement: DueSettlement | null = null;
  const posted = await deps.dataSource.transaction(async (manager) => {
    const held = await lockSuspenseFunds(manager, event.money_key);
    if (!held) throw new NotYetError(`funds ${event.funds_id}: ${status} before their coming in was posted`);
    if (held.status !== 'held') return false;
    if (held.amountCentavos === null) {
      if (assigned)
        throw new Error(`funds ${event.funds_id}: assigned, but their value in BRL was never known`);
      // Nothing was booked for it (its value was never known): it leaves the record, and nothing else.
      await closeSuspenseFunds(manager, held.moneyKey, { status, journalId: null, businessId: null, at });
      return false;
    }
    if (credited) await lockBalance(manager, credited);
    const heldFunds = {
      amountCentavos: held.amountCentavos,
      holdingAccount: storedHoldingAccount(held.holdingAccount),
      amountBaseUnits: held.amountBaseUnits,
    };
    const posting = assigned
      ? suspenseCreditPosting(event, heldFunds, deps.delays)
      : fundsReturnedPosting(event, heldFunds, deps.delays);
    const journalId = await claimAndWrite(manager, posting);
    if (journalId === null) return false;
    await closeSuspenseFunds(manager, held.moneyKey, {
      status,
      journalId,
      businessId: credited,
      at,
    });
    settlement = 'settlement' in posting ? posting.settlement : null;
    return true;
  });
  if (posted) {
    recordJournalPosted(assigned ? 'funds_assigned' : 'funds_returned', at);
    const due: DueSettlement | null = settlement;
    if (due !== null && isSettlementDue(due, new Date())) deps.afterPosting?.();
  }
  return { posted };
}
