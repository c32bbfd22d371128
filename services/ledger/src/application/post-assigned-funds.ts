import type { DataSource } from 'typeorm';
import type { FundsAssigned } from '@gateway/contracts';
import { storedHoldingAccount } from '../domain/accounts';
import { fundsAssignedPosting } from '../domain/posting-rules';
import { closeSuspenseFunds, lockBalance, lockSuspenseFunds } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

/**
 * `payment.funds.assigned.v1`: the operator assigned held money to a payment's business; it moves from suspense to the
 * business's `available` at the value it was booked in, with an `adjustment` balance transaction, once
 * (`funds:out:<money_key>`). Money whose coming in is not posted yet waits for it (the broker delivers it again);
 * money booked without a value cannot be credited: the handler fails and the message is parked for the operator.
 */
export async function postAssignedFunds(
  dataSource: DataSource,
  event: FundsAssigned,
): Promise<{ posted: boolean }> {
  const posted = await dataSource.transaction(async (manager) => {
    const held = await lockSuspenseFunds(manager, event.money_key);
    if (!held) throw new Error(`funds ${event.funds_id}: assigned before their coming in was posted`);
    if (held.status !== 'held') return false;
    if (held.amountCentavos === null)
      throw new Error(`funds ${event.funds_id}: assigned, but their value in BRL was never known`);
    await lockBalance(manager, event.business_id);
    const posting = fundsAssignedPosting(event, {
      amountCentavos: held.amountCentavos,
      holdingAccount: storedHoldingAccount(held.holdingAccount),
    });
    const journalId = await claimAndWrite(manager, posting);
    if (journalId === null) return false;
    await closeSuspenseFunds(manager, held.moneyKey, {
      status: 'assigned',
      journalId,
      businessId: event.business_id,
      at: new Date(event.occurred_at),
    });
    return true;
  });
  if (posted) recordJournalPosted('funds_assigned', new Date(event.occurred_at));
  return { posted };
}
