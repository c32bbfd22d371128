import type { DataSource } from 'typeorm';
import type { DisputeEventPayload } from '@gateway/contracts';
import { InvalidMessageError, NotYetError } from '@gateway/messaging';
import {
  closedDisputeContradiction,
  directPaymentCauseKey,
  disputeClosedPosting,
} from '../domain/posting-rules';
import { closeDispute, journalExists, lockBalance, lockDispute } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { claimAndWrite } from './shared/write-posting';

/**
 * `dispute.closed.v1`: won, the blocked amount goes back to `available` (a `dispute_won` balance transaction of zero);
 * lost, it leaves `blocked` for the PSP account the payer's bank took it from (a `dispute` balance transaction of −D).
 * One journal per dispute's closing (`dispute:closed:<dispute_id>`: won or lost, never both). A closing whose opening
 * is not posted yet waits for it (the broker delivers it again). It moves the money of the business the opening
 * blocked, by what it blocked: a closing naming another business, payment or amount is refused as a poison message
 * (parked, logged as an error) and moves nothing.
 */
export async function postClosedDispute(
  dataSource: DataSource,
  event: DisputeEventPayload,
): Promise<{ posted: boolean }> {
  const { dispute } = event;
  const outcome = dispute.status;
  if (outcome === 'open') throw new Error(`dispute ${dispute.dispute_id}: closed with status open`);
  const posted = await dataSource.transaction(async (manager) => {
    // The direct model: its opening posted nothing, nor does its end.
    if (await journalExists(manager, directPaymentCauseKey(dispute.payment_id))) return false;
    const opened = await lockDispute(manager, dispute.dispute_id);
    if (!opened) throw new NotYetError(`dispute ${dispute.dispute_id}: closed before its opening was posted`);
    const contradiction = closedDisputeContradiction(event, opened);
    if (contradiction !== null) throw new InvalidMessageError(contradiction);
    if (opened.status !== 'open') return false;
    await lockBalance(manager, opened.businessId);
    const journalId = await claimAndWrite(manager, disputeClosedPosting(event, opened));
    if (journalId === null) return false;
    await closeDispute(manager, dispute.dispute_id, {
      status: outcome,
      journalId,
      at: new Date(event.occurred_at),
    });
    return true;
  });
  if (posted) recordJournalPosted('dispute_closed', new Date(event.occurred_at));
  return { posted };
}
