import { databaseCutOff, databaseRefusesConnections } from '../src';
import { describeFaultRun } from './support/fault-run-suite';

/** Minutes, not seconds: longer than any single retry delay, so messages wait in the delay queues more than once. */
const OUTAGE_MS = 3 * 60_000;
const PAYMENT_CUT_OFF_MS = 2 * 60_000;

/**
 * Database outages of minutes in the middle of payments. First the whole database refuses every connection for three
 * minutes: clients hear 503 with Retry-After and retry under their key. Then only the payment service loses it for two
 * minutes while the rails go on confirming: their `pix.charge.paid` and `crypto.request.settled` events fail in the
 * payment service and wait in the delay queues, retried with backoff, where they used to be parked within seconds.
 * Afterwards every payment is in the right status and every webhook was sent.
 */
describe('database outages of minutes during payments', () => {
  describeFaultRun(
    {
      load: { clients: 3, pauseMs: 400, paidShare: 0.85, giveUpAfterMs: OUTAGE_MS + 120_000 },
      // A message may have just entered the two-minute delay when the database came back.
      settleTimeoutMs: 300_000,
      gapMs: 30_000,
    },
    () => [databaseRefusesConnections(OUTAGE_MS), databaseCutOff('payment', PAYMENT_CUT_OFF_MS)],
    { minimumPayments: 40, brokerRetries: true },
  );
});
