import { databaseRefusesConnections } from '../src/faults';
import { describeFaultRun } from './support/fault-run-suite';

/** Minutes, not seconds: longer than any single retry delay, so messages wait in the delayed queues more than once. */
const OUTAGE_MS = 3 * 60_000;

/**
 * A database outage of a few minutes in the middle of payments: clients hear 503 with Retry-After and retry; payments
 * asked to be paid just before it, and events under way, are retried with backoff until it ends. Afterwards every
 * payment is in the right status and every webhook was sent.
 */
describe('a database outage of three minutes during payments', () => {
  describeFaultRun(
    {
      load: { clients: 3, pauseMs: 400, paidShare: 0.85, giveUpAfterMs: OUTAGE_MS + 120_000 },
      // A message may have just entered the two-minute delay when the database came back.
      settleTimeoutMs: 300_000,
      gapMs: 30_000,
    },
    () => [databaseRefusesConnections(OUTAGE_MS)],
    20,
  );
});
