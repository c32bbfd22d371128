/**
 * When this replica last read the payment service's change feed to its end in one page: every payment change that
 * committed before then is in the copies (docs/adr/0043-payment-lists-from-the-change-feed.md). The copies are as
 * stale as this is old, at most: a list is answered from them only while it is young, and a single payment's copy may
 * be answered past its own age while it is.
 */
export class ChangeFeedWatermark {
  private caughtUpAt = Number.NEGATIVE_INFINITY;

  /** A pass read the feed to its end; `askedAt`: when it asked for its page (before the feed read anything). */
  caughtUp(askedAt: number): void {
    this.caughtUpAt = Math.max(this.caughtUpAt, askedAt);
  }

  /** The copies are being read again from the feed's start (lost, or a rebuild asked for): nothing is known complete. */
  rebuilding(): void {
    this.caughtUpAt = Number.NEGATIVE_INFINITY;
  }

  /** How long ago the copies were last known complete (infinite before the first pass). */
  ageMs(now: number): number {
    return now - this.caughtUpAt;
  }
}
