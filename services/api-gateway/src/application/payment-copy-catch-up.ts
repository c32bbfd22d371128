import type { PaymentChangeCursor, PaymentChangesPage, ReadPaymentChanges } from '@gateway/contracts';
import { PeriodicTask } from '@gateway/messaging';
import { gauge } from '@gateway/observability';
import { moveCopyFeedPosition, readCopyFeedPosition, storePaymentCopies } from '../persistence';
import type { PaymentCopies } from './shared/payment-copies';

const feedAge = gauge(
  'gateway_payment_change_feed_age_seconds',
  "How long ago this replica last read the payment service's change feed to its end: the bound on how stale a list from the copies can be (lists go to the payment service past PAYMENT_COPY_MAX_AGE_MS)",
);

/** Payments a page of the feed carries at most, and pages one pass reads before it records where it is. */
const PAGE_SIZE = 500;
const PAGES_PER_PASS = 20;

/**
 * Keeps the gateway's payment copies complete (docs/adr/0043-payment-lists-from-the-change-feed.md): every
 * `intervalMs`, reads the payment service's change feed from the recorded position, stores every payment it answers
 * (a copy only ever moves to a newer version), then records the position the next pass starts from. A pass that read
 * the feed to its end in one page moves the change-feed watermark. With no position recorded (a new gateway, or the
 * copies lost) the feed is read from its start: the copies rebuild, `PAGES_PER_PASS` pages a pass, one pass after the
 * other. Every replica reads it; their positions only move forward and twice is once.
 */
export function paymentCopyCatchUp(
  copies: PaymentCopies,
  readChanges: (query: ReadPaymentChanges) => Promise<PaymentChangesPage>,
  intervalMs: number,
): PeriodicTask {
  const { manager } = copies.dataSource;
  const pass = async (): Promise<boolean> => {
    const from = await readCopyFeedPosition(manager);
    // From the start: copies may be missing until the pass that reads the feed to its end in one page.
    if (from === '0') copies.changeFeed.rebuilding();
    const askedAt = Date.now();
    let after: PaymentChangeCursor = { xid: from, payment_id: '' };
    let settledBelow: bigint | null = null;
    for (let pages = 1; ; pages += 1) {
      const page = await readChanges({ after, limit: PAGE_SIZE });
      await storePaymentCopies(
        manager,
        page.payments
          .filter((view) => view.payment.version !== undefined)
          .map((view) => ({
            record: view.payment,
            instructions: view[view.payment.method] ?? null,
            asOf: null,
          })),
      );
      const settled = BigInt(page.settled_below);
      if (settledBelow === null || settled < settledBelow) settledBelow = settled;
      if (page.last) after = page.last;
      if (!page.has_more) {
        await moveCopyFeedPosition(manager, String(settledBelow));
        if (pages === 1) copies.changeFeed.caughtUp(askedAt);
        return pages > 1;
      }
      if (pages === PAGES_PER_PASS) {
        // Not at the end: what was read stands below the last payment read, and below every page's settling point.
        const lastRead = BigInt(after.xid);
        await moveCopyFeedPosition(manager, String(lastRead < settledBelow ? lastRead : settledBelow));
        return true;
      }
    }
  };
  return new PeriodicTask(
    async () => {
      try {
        return await pass();
      } finally {
        feedAge.set(Math.min(copies.changeFeed.ageMs(Date.now()), Number.MAX_SAFE_INTEGER) / 1000);
      }
    },
    { name: 'payment-copy-catch-up', intervalMs, logger: copies.logger },
  );
}
