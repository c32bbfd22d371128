import { FaultRun, everyFault, faultRunTiming, invariantNames, type FaultRunResult } from '../src/faults';

/**
 * The fault suite: the whole stack under steady PIX and crypto traffic (idempotent creates retried on 503
 * and network errors, sandbox payments, webhooks to a local HTTPS receiver) while every fault is injected in turn;
 * then nothing may be lost, duplicated, stuck, parked or unsent, and no client may have seen a 500.
 */
describe('the stack under faults', () => {
  let run: FaultRun | undefined;
  let result: FaultRunResult;

  beforeAll(async () => {
    run = await FaultRun.start({
      load: { clients: 3, pauseMs: 600, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 150_000,
      gapMs: 2_000,
      log: (line) => process.stderr.write(`[faults] ${line}\n`),
    });
    await run.startLoad();
    for (const fault of everyFault(faultRunTiming)) await run.inject(fault);
    result = await run.finish();
    console.log(result.text);
  }, 15 * 60_000);

  afterAll(async () => {
    await run?.stop();
  }, 60_000);

  test.each(Object.values(invariantNames))('%s', (name) => {
    const invariant = result.report.invariants.find((i) => i.name === name);
    expect(invariant?.violations).toEqual([]);
  });

  test('the load kept flowing: payments made, paid and announced', () => {
    expect(result.report.figures.payments).toBeGreaterThan(50);
    expect(result.report.figures.paid).toBeGreaterThan(40);
    expect(result.report.figures.deliveredEvents).toBeGreaterThanOrEqual(result.report.figures.paid);
  });
});
