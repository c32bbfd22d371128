import { counter, histogram } from '@gateway/observability';
import type { PostingKind } from '../../domain/posting-rules';

// Each is recorded after the transaction that posted commits, so a rollback or a redelivery counts nothing.

const journalsPosted = counter(
  'ledger_journals_posted_total',
  'Journals posted, by kind: payment, settlement, refund, reservation, release, payout, funds_* (suspense), dispute_* (a redelivered or replayed event posts none)',
  ['kind'],
);

const postingLag = histogram(
  'ledger_event_to_posted_seconds',
  'Time from a money event (payment confirmed, refund succeeded) to its journal committed, by kind',
  ['kind'],
  [0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 15, 60, 300],
);

/** One committed journal; for an event's, `occurredAt` times how far the books were behind it. */
export function recordJournalPosted(kind: PostingKind, occurredAt?: Date): void {
  journalsPosted.inc({ kind });
  if (occurredAt) postingLag.observe({ kind }, Math.max(0, (Date.now() - occurredAt.getTime()) / 1000));
}
