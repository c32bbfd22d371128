import {
  newPublicId,
  payoutFailed,
  payoutPaid,
  type PayoutStatus,
  type PixPayoutSettled,
} from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { settledPayoutOutcome, toPayoutRecord } from '../domain/payout';
import { payoutSettledPosting } from '../domain/posting-rules';
import { claimJournal, lockBalance, lockPayout, markPayoutSettled } from '../persistence';
import { recordJournalPosted } from './shared/ledger-metrics';
import { writeJournal } from './shared/write-journal';

const outcomeConflicts = counter(
  'ledger_payout_outcome_conflicts_total',
  'PSP outcomes contradicting a final payout (paid after failed, failed after paid): the books and the PSP disagree about money that moved, for an operator to settle',
  ['outcome'],
);
// Served at zero from the start, so the first conflict is an increase Prometheus sees.
for (const outcome of ['paid', 'failed'] as const) outcomeConflicts.inc({ outcome }, 0);

/** What a PSP outcome did: posted, or why nothing (the payout unknown, final already, or final the other way). */
export type SettledPayoutResult =
  | { result: 'posted'; status: PayoutStatus }
  | { result: 'already_settled' | 'contradicts'; status: PayoutStatus }
  | { result: 'unknown_payout' };

/**
 * `pix.payout.settled.v1`: the payout's outcome posted under `payout:<id>:<outcome>`, in one transaction with the
 * payout's new status and its public event (`payout.paid` / `payout.failed`). Paid: the reserved amount leaves the
 * PSP account and the business's statement gets its `payout` line. Failed: the amount is available again. Once per
 * message (inbox) and once per payout (only a pending payout settles); an outcome for a payout the ledger does not
 * know, or contradicting a final one, posts nothing and is answered for the handler to report; a contradiction is
 * counted once per message (`ledger_payout_outcome_conflicts_total`, by the outcome reported), as it commits.
 */
export function postSettledPayout(
  uow: UnitOfWork,
  settled: PixPayoutSettled,
  context: MessageContext,
): Promise<SettledPayoutResult> {
  return uow.once(context, async (tx): Promise<SettledPayoutResult> => {
    const payout = await lockPayout(tx.manager, settled.payout_id);
    if (!payout) return { result: 'unknown_payout' };
    const decision = settledPayoutOutcome(payout.status, settled);
    if (decision === 'contradicts') tx.afterCommit(() => outcomeConflicts.inc({ outcome: settled.outcome }));
    if (decision !== 'settle') return { result: decision, status: payout.status };
    const settledAt = new Date(settled.settled_at);
    const posting = payoutSettledPosting(
      { payoutId: payout.id, businessId: payout.businessId, amountCentavos: payout.amountCentavos },
      settled.outcome,
      settledAt,
      settled.end_to_end_id,
    );
    const journalId = await claimJournal(tx.manager, {
      causeKey: posting.causeKey,
      kind: 'payout',
      businessId: payout.businessId,
      railReference: posting.railReference,
    });
    if (journalId === null)
      throw new Error(`payout ${payout.id} is pending but ${posting.causeKey} is posted`);
    await lockBalance(tx.manager, payout.businessId);
    await writeJournal(tx.manager, journalId, posting);
    const paid = settled.outcome === 'paid';
    const updated = await markPayoutSettled(tx.manager, payout.id, {
      status: settled.outcome,
      endToEndId: paid ? settled.end_to_end_id : null,
      failureReason: paid ? null : settled.failure_reason,
      settledAt,
    });
    const eventId = newPublicId('evt');
    await tx.emit(
      paid ? payoutPaid : payoutFailed,
      {
        event_id: eventId,
        business_id: updated.businessId,
        occurred_at: updated.updatedAt.toISOString(),
        payout: toPayoutRecord(updated),
      },
      { messageId: eventId },
    );
    tx.afterCommit(() => recordJournalPosted('payout', settledAt));
    return { result: 'posted', status: updated.status };
  });
}
