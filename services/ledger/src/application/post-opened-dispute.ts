import type { DataSource } from 'typeorm';
import type { DisputeEventPayload } from '@gateway/contracts';
import { directPaymentCauseKey, disputeOpenedPosting } from '../domain/posting-rules';
import { insertDispute, journalExists, lockBalance } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

/**
 * `dispute.created.v1`: the disputed amount moves at once from the business's `available` to `blocked`, in one
 * journal keyed by the dispute (`dispute:opened:<dispute_id>`), so a redelivery or a replay under another event id
 * posts nothing; the dispute is kept with the amount blocked, for its closing. A dispute of a payment paid into the
 * business's own PSP account (the direct model) posts nothing: the payer's bank takes the money back from that
 * account, and nothing of the business's balance with the platform was ever that payment's.
 */
export async function postOpenedDispute(
  dataSource: DataSource,
  event: DisputeEventPayload,
): Promise<{ posted: boolean }> {
  const { dispute } = event;
  const posted = await dataSource.transaction(async (manager) => {
    if (await journalExists(manager, directPaymentCauseKey(dispute.payment_id))) return false;
    await lockBalance(manager, dispute.business_id);
    const journalId = await claimAndWrite(manager, disputeOpenedPosting(event));
    if (journalId === null) return false;
    await insertDispute(manager, {
      disputeId: dispute.dispute_id,
      paymentId: dispute.payment_id,
      businessId: dispute.business_id,
      amountCentavos: dispute.amount_centavos,
      journalId,
      openedAt: new Date(event.occurred_at),
    });
    return true;
  });
  if (posted) recordJournalPosted('dispute_opened', new Date(event.occurred_at));
  return { posted };
}
