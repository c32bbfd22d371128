import {
  FaultRun,
  invariantNames,
  type Fault,
  type FaultRunOptions,
  type FaultRunResult,
  type AttemptRecord,
} from '../../src';

/** What a suite prepares before its run starts (options it adds) and takes down around its stop. */
export interface FaultRunLifecycle {
  beforeStart?: (log: (line: string) => void) => Promise<Partial<Omit<FaultRunOptions, 'log'>>>;
  /** Before the stack stops (its database dropped, its broker stopped). */
  beforeStop?: () => Promise<void>;
  afterStop?: () => Promise<void>;
}

/**
 * One fault run as a jest suite: the stack under steady load while `faults` are injected in turn, then one test per
 * invariant (nothing lost, duplicated, stuck, parked or unsent, no 500 seen by a client) and one that the load flowed.
 * Returns the run and its result, for a suite's own tests (they run after the run has finished).
 */
export function describeFaultRun(
  options: Omit<FaultRunOptions, 'log'>,
  faults: (run: FaultRun) => Fault[],
  expected: { minimumPayments: number; brokerRetries: boolean },
  around: FaultRunLifecycle = {},
): { run: () => FaultRun; result: () => FaultRunResult } {
  const { minimumPayments } = expected;
  let run: FaultRun | undefined;
  let result: FaultRunResult;

  beforeAll(async () => {
    const log = (line: string) => process.stderr.write(`[faults] ${line}\n`);
    const prepared = (await around.beforeStart?.(log)) ?? {};
    run = await FaultRun.start({ ...options, ...prepared, log });
    await run.startLoad();
    for (const fault of faults(run)) await run.inject(fault);
    result = await run.finish();
    console.log(result.text);
  }, 20 * 60_000);

  afterAll(async () => {
    await around.beforeStop?.();
    await run?.stop();
    await around.afterStop?.();
  }, 90_000);

  test.each(Object.values(invariantNames))('%s', (name) => {
    const invariant = result.report.invariants.find((i) => i.name === name);
    expect(invariant?.violations).toEqual([]);
  });

  test('the load kept flowing: payments made, paid and announced, payouts, refunds, suspense and adjustments', () => {
    expect(result.report.figures.payments).toBeGreaterThan(minimumPayments);
    expect(result.report.figures.paid).toBeGreaterThan(minimumPayments * 0.8);
    expect(result.report.figures.deliveredEvents).toBeGreaterThanOrEqual(result.report.figures.paid);
    expect(result.report.figures.payouts).toBeGreaterThan(0);
    expect(result.report.figures.payoutsPaid + result.report.figures.payoutsFailed).toBe(
      result.report.figures.payouts,
    );
    expect(result.report.figures.refundsSucceeded).toBeGreaterThan(0);
    expect(result.report.figures.refundsFailed).toBeGreaterThan(0);
    expect(result.report.figures.refundsSucceeded + result.report.figures.refundsFailed).toBe(
      result.report.figures.refunds,
    );
    expect(result.report.figures.heldFundsReturned).toBeGreaterThan(0);
    expect(result.report.figures.heldFundsAssigned).toBeGreaterThan(0);
    expect(result.report.figures.adjustments).toBeGreaterThan(0);
    if (options.load.subscriptionClients) {
      const { subscriptions } = result.report.figures;
      expect(subscriptions.cyclesPaid).toBeGreaterThan(0);
      expect(subscriptions.cyclesFailed).toBeGreaterThan(0);
      const { racedCancelsPaid, racedCancelsHeld, racedCancelsNotCharged } = subscriptions;
      expect(racedCancelsPaid + racedCancelsHeld + racedCancelsNotCharged).toBeGreaterThan(0);
    }
  });

  if (expected.brokerRetries)
    test('the faults struck messages under way: some went through the delay queues', () => {
      expect(result.brokerRetries).toBeGreaterThan(0);
    });

  return { run: () => run!, result: () => result };
}

/** The run's client attempts that ended in anything but a success, a 4xx or a 503: another 5xx, a reset, a refusal. */
export function onlyServiceUnavailable(run: FaultRun): AttemptRecord[] {
  return run.targets.load.attempts.filter(
    (a) => typeof a.outcome !== 'number' || (a.outcome >= 500 && a.outcome !== 503),
  );
}
