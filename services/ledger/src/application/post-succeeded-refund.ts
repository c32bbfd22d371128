import type { DataSource, EntityManager } from 'typeorm';
import { NotYetError } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import type { RefundEventPayload } from '@gateway/contracts';
import { holdingAccount, storedHoldingAccount } from '../domain/accounts';
import {
  directPaymentCauseKey,
  refundSucceededPosting,
  reservedRefundSucceededPosting,
} from '../domain/posting-rules';
import {
  balanceTransactionExists,
  claimJournal,
  journalExists,
  findReservation,
  lockBalance,
  lockPaymentPosting,
  lockSettlement,
  markReservation,
  paymentTokens,
  takeFromSettlement,
} from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

/**
 * `refund.succeeded.v1`: the refund's money left the platform (from where the payment's money is held), and the
 * business gives up what the refund reserved (`reserved`), with the refund's balance transaction; the reservation is
 * `spent`. One journal keyed by the event id, so a redelivery writes nothing, and one balance transaction per refund,
 * so a replay under another id writes nothing either. A refund that reserved nothing (opened before refunds reserved)
 * is posted as it was then: from its payment's pending remainder, then `available`.
 */
export async function postSucceededRefund(
  deps: { dataSource: DataSource; logger: Logger },
  event: RefundEventPayload,
): Promise<{ posted: boolean }> {
  const { refund } = event;
  const posted = await deps.dataSource.transaction(async (manager) => {
    await lockPaymentPosting(manager, refund.payment_id);
    // The refund posted under another event id (a replay): nothing more.
    if (await balanceTransactionExists(manager, 'refund', refund.refund_id)) return false;
    // A devolução of a payment paid into the business's own PSP account left that account: nothing of the platform's
    // moved, nothing was reserved, and the fee the payment owes stays owed.
    if (await journalExists(manager, directPaymentCauseKey(refund.payment_id))) return false;
    const reservation = await findReservation(manager, refund.refund_id, { lock: true });
    const journalId = await claimJournal(manager, {
      causeKey: event.event_id,
      kind: 'refund',
      businessId: refund.business_id,
      railReference: refund.external_id,
    });
    if (journalId === null) return false;
    if (reservation && (reservation.status === 'held' || reservation.status === 'confirmed')) {
      // Its payment was posted before it could reserve: the holding account is known.
      const settlement = await lockSettlement(manager, refund.payment_id);
      if (!settlement) throw new Error(`refund ${refund.refund_id} reserved for a payment not posted`);
      await lockBalance(manager, refund.business_id);
      const holding = storedHoldingAccount(settlement.holdingAccount);
      // A crypto refund returns its share of the tokens the payment brought (the books count them too).
      const tokens =
        holding !== 'cash_psp' ? await paymentTokens(manager, settlement.balanceTransactionId) : null;
      await writeJournal(manager, journalId, reservedRefundSucceededPosting(event, holding, tokens));
      await markReservation(manager, reservation.id, 'spent');
      return true;
    }
    if (reservation)
      deps.logger.error(
        { refund_id: refund.refund_id, reservation_status: reservation.status },
        'refund succeeded after its reservation was resolved: posted from the balance',
      );
    await postUnreserved(manager, journalId, event);
    return true;
  });
  if (posted) recordJournalPosted('refund', new Date(event.occurred_at));
  return { posted };
}

/** A refund that reserved nothing: from its payment's pending remainder first, then `available` (may go below zero). */
async function postUnreserved(manager: EntityManager, journalId: number, event: RefundEventPayload) {
  const { refund } = event;
  // Locked before the balance, as the settlement sweep locks them: the two never wait on each other in a cycle.
  const settlement = await lockSettlement(manager, refund.payment_id);
  // A crypto payment's refund needs its payment's token account, known once the payment is posted: a refund
  // delivered first (two producers' events out of order) waits for it, retried by the broker.
  if (settlement === null && refund.method === 'crypto')
    throw new NotYetError(`refund ${refund.refund_id}: payment ${refund.payment_id} not posted yet`);
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
}
