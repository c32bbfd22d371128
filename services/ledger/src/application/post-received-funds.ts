import type { DataSource } from 'typeorm';
import type { FundsReceived } from '@gateway/contracts';
import { holdingAccount } from '../domain/accounts';
import { fundsReceivedPosting } from '../domain/posting-rules';
import { keepSuspenseFunds } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

/**
 * `payment.funds.received.v1`: money the platform holds that belongs to no payment yet goes to `suspense`, in one
 * journal keyed by the money (`funds:received:<money_key>`), so a redelivery, a replay, or another record of the same
 * money (one transfer instruction naming several payments) books it once. Money whose BRL value is not known is kept
 * on record with nothing booked; a later record of it that knows the value books it then.
 */
export async function postReceivedFunds(
  dataSource: DataSource,
  event: FundsReceived,
): Promise<{ posted: boolean }> {
  const posting = fundsReceivedPosting(event);
  const posted = await dataSource.transaction(async (manager) => {
    const journalId = posting ? await claimAndWrite(manager, posting) : null;
    if (posting && journalId === null) return false;
    await keepSuspenseFunds(manager, {
      moneyKey: event.money_key,
      fundsId: event.funds_id,
      kind: event.kind,
      rail: event.rail,
      paymentId: event.payment_id,
      businessId: event.business_id,
      holdingAccount: holdingAccount(event.rail, event.token),
      amountCentavos: event.amount_centavos,
      amountBaseUnits: event.amount_base_units,
      journalId,
      receivedAt: new Date(event.occurred_at),
    });
    return journalId !== null;
  });
  if (posted) recordJournalPosted('funds_received', new Date(event.occurred_at));
  return { posted };
}
