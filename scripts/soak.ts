/**
 * Soak: `pnpm soak --minutes N` runs the fault suite's load at a steady rate for N minutes while faults drawn at
 * random from the fault suite's list hit the stack, then prints the same invariants and figures. Exits 1 when an
 * invariant is broken. Not part of CI; the stack's output is kept under artifacts/faults/.
 */
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { FaultRun, everyFault, faultRunTiming } from '../packages/faultkit/src';
import { letTimePass } from '../packages/testkit-core/src/wait';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '3' },
  },
});
const minutes = Number(values.minutes);
const clients = Number(values.clients);
if (!Number.isFinite(minutes) || minutes <= 0 || !Number.isInteger(clients) || clients < 1) {
  console.error('usage: pnpm soak --minutes <N> [--clients <parallel clients, default 3>]');
  process.exit(2);
}

async function main(): Promise<boolean> {
  const run = await FaultRun.start({
    load: { clients, pauseMs: 600, paidShare: 0.85, giveUpAfterMs: 120_000 },
    settleTimeoutMs: 180_000,
    gapMs: 0,
    log: (line) => console.error(`[soak] ${line}`),
  });
  // Ctrl-C ends the soak early: the stack, broker and Redis it started are stopped all the same.
  process.once('SIGINT', () => void run.stop().finally(() => process.exit(130)));
  try {
    await run.startLoad();
    const deadline = Date.now() + minutes * 60_000;
    const faults = everyFault(faultRunTiming);
    while (Date.now() < deadline) {
      // A quiet stretch of 5-30 s between faults, so faults meet the system in every state of its recovery.
      await letTimePass(Math.min(randomInt(5_000, 30_000), Math.max(0, deadline - Date.now())));
      if (Date.now() >= deadline) break;
      await run.inject(faults[randomInt(faults.length)]!);
    }
    const result = await run.finish();
    console.log(result.text);
    return result.report.invariants.every((i) => i.violations.length === 0);
  } finally {
    await run.stop();
  }
}

main().then(
  (held) => process.exit(held ? 0 : 1),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
