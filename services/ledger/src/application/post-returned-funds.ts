import type { DataSource } from 'typeorm';
import type { FundsReturned } from '@gateway/contracts';
import { storedHoldingAccount } from '../domain/accounts';
import { fundsReturnedPosting } from '../domain/posting-rules';
import { closeSuspenseFunds, lockBalance, lockSuspenseFunds } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

/**
 * `payment.funds.returned.v1`: held money went back to the payer and leaves suspense, once (`funds:out:<money_key>`,
 * shared with an assignment: money leaves suspense one way). By a refund: out of the platform's holdings. By the
 * business itself: to its `available` (it paid the payer back). Money whose coming in is not posted yet (events of
 * one producer handled out of order) waits for it: the handler fails and the broker delivers it again.
 */
export async function postReturnedFunds(
  dataSource: DataSource,
  event: FundsReturned,
): Promise<{ posted: boolean }> {
  const posted = await dataSource.transaction(async (manager) => {
    const held = await lockSuspenseFunds(manager, event.money_key);
    if (!held) throw new Error(`funds ${event.funds_id}: returned before their coming in was posted`);
    if (held.status !== 'held') return false;
    const at = new Date(event.occurred_at);
    const manual = event.returned_by === 'manual';
    if (held.amountCentavos === null) {
      // Nothing was booked for it (its value was never known): it leaves the record, and nothing else.
      await closeSuspenseFunds(manager, held.moneyKey, {
        status: 'returned',
        journalId: null,
        businessId: null,
        at,
      });
      return false;
    }
    if (manual) await lockBalance(manager, event.business_id);
    const posting = fundsReturnedPosting(event, {
      amountCentavos: held.amountCentavos,
      holdingAccount: storedHoldingAccount(held.holdingAccount),
      amountBaseUnits: held.amountBaseUnits,
    });
    const journalId = await claimAndWrite(manager, posting);
    if (journalId === null) return false;
    await closeSuspenseFunds(manager, held.moneyKey, {
      status: 'returned',
      journalId,
      businessId: manual ? event.business_id : null,
      at,
    });
    return true;
  });
  if (posted) recordJournalPosted('funds_returned', new Date(event.occurred_at));
  return { posted };
}
