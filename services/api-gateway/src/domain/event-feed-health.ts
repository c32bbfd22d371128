/**
 * Whether the payment events reach the gateway's copies as fast as they reach everyone else (the webhook dispatcher,
 * the checkout service): the last event applied arrived within `maxLagMs` of when it occurred, and no event failed to
 * apply within `failureHoldMs`. While they do not (a backlog on the gateway's queue, its database failing, an event
 * gone to retry), the copy of an open payment may be behind a webhook the merchant already has: such reads go to the
 * payment service (docs/adr/0042-gateway-payment-read-model.md).
 */
export class EventFeedHealth {
  private lastLagMs = 0;
  private lastFailureAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxLagMs: number,
    private readonly failureHoldMs: number,
  ) {}

  applied(lagMs: number): void {
    this.lastLagMs = lagMs;
  }

  failed(now: number): void {
    this.lastFailureAt = now;
  }

  keepingUp(now: number): boolean {
    return this.lastLagMs <= this.maxLagMs && now - this.lastFailureAt > this.failureHoldMs;
  }
}
