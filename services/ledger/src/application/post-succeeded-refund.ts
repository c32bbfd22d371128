import type { DataSource } from 'typeorm';
import type { RefundEventPayload } from '@gateway/contracts';
import { holdingAccount, storedHoldingAccount } from '../domain/accounts';
import { refundSucceededPosting } from '../domain/posting-rules';
import {
  balanceTransactionExists,
  claimJournal,
  lockBalance,
  lockPaymentPosting,
  lockSettlement,
  paymentTokens,
  takeFromSettlement,
} from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

/**
 * `refund.succeeded.v1`: the refund's money left the platform (from where the payment's money is held) and the
 * business is owed that much less, from what the payment still has pending first, then `available`; one journal keyed by the event id, so a
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
      railReference: refund.external_id,
    });
    if (journalId === null) return false;
    // Locked before the balance, as the settlement sweep locks them: the two never wait on each other in a cycle.
    const settlement = await lockSettlement(manager, refund.payment_id);
    // A crypto payment's refund needs its payment's token account, known once the payment is posted: a refund
    // delivered first (two producers' events out of order) waits for it, retried by the broker.
    if (settlement === null && refund.method === 'crypto')
      throw new Error(`refund ${refund.refund_id}: payment ${refund.payment_id} not posted yet`);
    // The payment's holding account as posted; a PIX payment the ledger has not posted: the PSP cash account.
    const holding = settlement
      ? storedHoldingAccount(settlement.holdingAccount)
      : holdingAccount(refund.method, null);
    await lockBalance(manager, refund.business_id);
    // A crypto refund returns its share of the tokens the payment brought (the books count them too).
    const tokens =
      settlement && holding !== 'cash_psp'
        ? await paymentTokens(manager, settlement.balanceTransactionId)
        : null;
    const posting = refundSucceededPosting(event, holding, settlement?.remainingCentavos ?? 0, tokens);
    await takeFromSettlement(manager, refund.payment_id, posting.fromPendingOfPayment);
    await writeJournal(manager, journalId, posting);
    return true;
  });
  if (posted) recordJournalPosted('refund', new Date(event.occurred_at));
  return { posted };
}
