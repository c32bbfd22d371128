import { STACK_SHUTDOWN_TIMEOUT_MS } from '../src';
import { sigterm, type GatewayService, type RequestKind, type SignalledExit } from '../src/faults';
import { describeFaultRun } from './support/fault-run-suite';

/** Every service, in turn; on the payments' path while a request of the kind it serves is inside. */
const signalled: Array<[GatewayService, RequestKind?]> = [
  ['api-gateway', 'create'],
  ['payment', 'create'],
  ['pix-adapter', 'create'],
  ['solana-watcher', 'simulate'],
  ['checkout'],
  ['customer'],
  ['webhook-dispatcher'],
];

/**
 * SIGTERM, as an orchestrator's rolling restart sends it, to every service in turn during a burst of PIX and crypto
 * payments: each process stops taking work, finishes or hands back what it holds, publishes its outbox and exits 0
 * within its bound; the launcher starts it again. Afterwards nothing may be lost, duplicated, half-applied, stuck,
 * parked or unsent, and no client may have seen a 500.
 */
describe('SIGTERM to every service in turn during a burst of payments', () => {
  const exits: SignalledExit[] = [];

  describeFaultRun(
    {
      load: { clients: 4, pauseMs: 200, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 150_000,
      gapMs: 2_000,
    },
    () => signalled.map(([service, during]) => sigterm(service, exits, during)),
    { minimumPayments: 50, brokerRetries: false },
  );

  test('every service exited by itself, with code 0, within SHUTDOWN_TIMEOUT_MS', () => {
    console.log(
      `after SIGTERM:\n${exits.map((e) => `  ${e.service} exited (${e.exit}) in ${e.tookMs} ms`).join('\n')}`,
    );
    expect(exits.map(({ service, exit }) => ({ service, exit }))).toEqual(
      signalled.map(([service]) => ({ service, exit: '0' })),
    );
    for (const { tookMs } of exits) expect(tookMs).toBeLessThan(STACK_SHUTDOWN_TIMEOUT_MS);
  });
});
