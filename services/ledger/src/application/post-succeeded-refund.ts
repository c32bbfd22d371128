import type { DataSource } from 'typeorm';
import type { RefundEventPayload } from '@gateway/contracts';
import { holdingAccount, storedHoldingAccount } from '../domain/accounts';
import { refundSucceededPosting } from '../domain/posting-rules';
import {
  balanceTransactionExists,
  claimJournal,
  findSettlement,
  lockBalance,
  lockPaymentPosting,
} from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

/**
 * `refund.succeeded.v1`: the refund's money left the platform (from where the payment's money is held) and the
 * business is owed that much less, from `available` first, then `pending`; one journal keyed by the event id, so a
 * redelivery writes nothing, and one balance transaction per refund, so a replay under another id writes nothing
 * either.
 */
export async function postSucceededRefund(
  dataSource: DataSource,
  event: RefundEventPayload,
): Promise<{ posted: boolean }> {
  const { refund } = event;
  const posted = await dataSource.transaction(async (manager) => {
    await lockPaymentPosting(manager, refund.payment_id);
    // The refund posted under another event id (a replay): nothing more.
    if (await balanceTransactionExists(manager, 'refund', refund.refund_id)) return false;
    const journalId = await claimJournal(manager, {
      causeKey: event.event_id,
      kind: 'refund',
      businessId: refund.business_id,
    });
    if (journalId === null) return false;
    const settlement = await findSettlement(manager, refund.payment_id);
    // The payment's holding account as posted; a payment the ledger never saw paid: its method's account.
    const holding = settlement
      ? storedHoldingAccount(settlement.holdingAccount)
      : holdingAccount(refund.method, null);
    const balance = await lockBalance(manager, refund.business_id);
    const posting = refundSucceededPosting(event, holding, {
      available: balance.availableCentavos,
      pending: balance.pendingCentavos,
    });
    await writeJournal(manager, journalId, posting);
    return true;
  });
  if (posted) recordJournalPosted('refund', new Date(event.occurred_at));
  return { posted };
}
