import type { PaymentChangeCursor, PaymentChangesPage, ReadPaymentChanges } from '@gateway/contracts';
import { PeriodicTask } from '@gateway/messaging';
import { gauge } from '@gateway/observability';
import {
  type CopyFeedPosition,
  forgetPaymentCopies,
  moveCopyFeedPosition,
  readCopyFeedPosition,
  storePaymentCopies,
} from '../persistence';
import type { PaymentCopies } from './shared/payment-copies';

const feedAge = gauge(
  'gateway_payment_change_feed_age_seconds',
  "How long ago this replica last read the payment service's change feed to its end in one page: the bound on how stale a list from the copies can be (lists go to the payment service past PAYMENT_COPY_MAX_AGE_MS)",
);

/** Payments a page of the feed carries at most, and pages one pass reads before it lets the task breathe. */
const PAGE_SIZE = 500;
const PAGES_PER_PASS = 20;

/** A read of the feed from a recorded position to its end, which may take several passes (a rebuild). */
interface Scan {
  /** The recorded position it started from. */
  from: CopyFeedPosition;
  /** The last payment read: the next page starts after it. */
  after: PaymentChangeCursor;
  /** The lowest settling point of its pages: where the next scan may start once this one reaches the end. */
  settledBelow: bigint | null;
}

/**
 * Keeps the gateway's payment copies complete (docs/adr/0043-payment-lists-from-the-change-feed.md): every
 * `intervalMs`, reads the payment service's change feed from the recorded position to its end, stores every payment it
 * answers (a copy only ever moves to a newer version), and records where the next read starts: the lowest settling
 * point of its pages (never the last payment read: a transaction with a lower id may still commit). A read to the end
 * in one page moves the change-feed watermark. A longer read (a rebuild, a backlog) goes on `PAGES_PER_PASS` pages a
 * pass, one pass after the other, from where it stopped, and records its position only at the end. With no position
 * recorded (a new gateway, a rebuild asked for, copies deleted) the feed is read from its start. A feed that answers
 * a settling point below the recorded position has gone back (its database restored or moved): the copies may hold
 * versions it no longer has, so they are forgotten and rebuilt. Every replica reads the feed; positions only move
 * forward and twice is once.
 */
export function paymentCopyCatchUp(
  copies: PaymentCopies,
  readChanges: (query: ReadPaymentChanges) => Promise<PaymentChangesPage>,
  intervalMs: number,
): PeriodicTask {
  const { manager } = copies.dataSource;
  let scan: Scan | null = null;
  const pass = async (): Promise<boolean> => {
    const from = await readCopyFeedPosition(manager);
    // A scan in progress goes on unless the recorded position moved under it (a rebuild asked for, another replica).
    const startsHere =
      scan === null ||
      scan.from.settledBelow !== from.settledBelow ||
      scan.from.generation !== from.generation;
    if (startsHere) scan = { from, after: { xid: from.settledBelow, payment_id: '' }, settledBelow: null };
    // From the start: copies may be missing until a read to the end in one page.
    if (from.settledBelow === '0') copies.changeFeed.rebuilding();
    const askedAt = Date.now();
    const current = scan as Scan;
    for (let pages = 1; pages <= PAGES_PER_PASS; pages += 1) {
      // A stop asked for waits for one page, not a rebuild's twenty.
      if (pages > 1 && !task.isRunning) return false;
      const page = await readChanges({ after: current.after, limit: PAGE_SIZE });
      const settled = BigInt(page.settled_below);
      if (settled < BigInt(from.settledBelow)) {
        copies.logger.error(
          { position: from.settledBelow, settled_below: page.settled_below },
          'the payment change feed went back: its database was restored or moved; the payment copies are rebuilt',
        );
        copies.changeFeed.rebuilding();
        await forgetPaymentCopies(manager);
        scan = null;
        return true;
      }
      await storePaymentCopies(
        manager,
        page.payments
          .filter((view) => view.payment.version !== undefined)
          .map((view) => ({
            record: view.payment,
            instructions: view[view.payment.method] ?? null,
            asOf: null,
          })),
        from.generation,
      );
      if (current.settledBelow === null || settled < current.settledBelow) current.settledBelow = settled;
      if (page.last) current.after = page.last;
      if (!page.has_more) {
        const held = await moveCopyFeedPosition(manager, from, String(current.settledBelow));
        // Only a read to the end in one page, stored into copies not deleted since, proves completeness as of when it
        // asked (docs/adr/0043).
        if (held && startsHere && pages === 1) copies.changeFeed.caughtUp(askedAt);
        scan = null;
        return false;
      }
    }
    return true;
  };
  const task: PeriodicTask = new PeriodicTask(
    async () => {
      try {
        return await pass();
      } finally {
        feedAge.set(Math.min(copies.changeFeed.ageMs(Date.now()), Number.MAX_SAFE_INTEGER) / 1000);
      }
    },
    { name: 'payment-copy-catch-up', intervalMs, logger: copies.logger },
  );
  return task;
}
