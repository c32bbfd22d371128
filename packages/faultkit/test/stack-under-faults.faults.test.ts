import { everyFault, faultRunTiming } from '../src';
import { describeFaultRun } from './support/fault-run-suite';

/**
 * The fault suite: the whole stack under steady PIX and crypto traffic (idempotent creates retried on 503
 * and network errors, sandbox payments, webhooks to a local HTTPS receiver) and subscriptions whose cycles are debited
 * as their clocks move (a cancel racing a debit among them) while every fault is injected in turn; then nothing may be
 * lost, duplicated, stuck, parked or unsent, no cycle charged twice, and no client may have seen a 500.
 */
describe('the stack under faults', () => {
  describeFaultRun(
    {
      load: { clients: 3, pauseMs: 600, paidShare: 0.85, giveUpAfterMs: 120_000, subscriptionClients: 1 },
      settleTimeoutMs: 150_000,
      gapMs: 2_000,
    },
    () => everyFault(faultRunTiming),
    { minimumPayments: 50, brokerRetries: false },
  );
});
