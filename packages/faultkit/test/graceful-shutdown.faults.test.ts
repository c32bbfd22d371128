import { STACK_SHUTDOWN_TIMEOUT_MS, type LoggedMessage } from '@gateway/testkit';
import {
  REQUEST_ACCEPTED_MS,
  sigterm,
  stopHadWork,
  type GatewayService,
  type SignalMoment,
  type SignalledExit,
} from '../src';
import { describeFaultRun } from './support/fault-run-suite';

/**
 * How often a service on the payments' path is signalled at most until a stop has work in hand: a request being inside
 * the gateway does not mean this service holds part of it at that instant. The PIX adapter is signalled while it waits
 * on the PSP for a charge instead: a request's age left it between messages at all ten signals of one CI run.
 */
const SIGNALS_AT_MOST = 10;

/**
 * Every service, in turn; on the payments' path while it serves a request (the PIX adapter: while it waits on the PSP
 * for a charge), and signalled again (SIGNALS_AT_MOST times at most) until its stop has work in hand.
 */
const signalled: Array<[GatewayService, SignalMoment?, number?]> = [
  ['api-gateway', 'create', SIGNALS_AT_MOST],
  ['payment', 'create', SIGNALS_AT_MOST],
  ['pix-adapter', 'psp-charge', SIGNALS_AT_MOST],
  ['solana-watcher', 'simulate'],
  ['checkout'],
  ['customer'],
  ['webhook-dispatcher'],
  ['ledger'],
];

/**
 * SIGTERM, as an orchestrator's rolling restart sends it, to every service in turn during a burst of PIX and crypto
 * payments: each process stops taking work, finishes or hands back what it holds, publishes its outbox and exits 0
 * within its bound; the launcher starts it again. Afterwards nothing may be lost, duplicated, half-applied, stuck,
 * parked or unsent, and no client may have seen a 500. A stop that merely exits would pass those (the broker
 * redelivers, the inboxes deduplicate), so it is also checked that the stops had work in hand, that the gateway
 * answered every request it had, and that every message in hand at a stop was finished by it, never delivered again.
 */
describe('SIGTERM to every service in turn during a burst of payments', () => {
  const exits: SignalledExit[] = [];

  const suite = describeFaultRun(
    {
      load: { clients: 4, pauseMs: 200, paidShare: 0.85, giveUpAfterMs: 120_000 },
      settleTimeoutMs: 150_000,
      gapMs: 2_000,
    },
    () => signalled.map(([service, during, tries]) => sigterm(service, exits, during, tries)),
    { minimumPayments: 50, brokerRetries: false },
  );

  test('every service exited by itself, with code 0, within SHUTDOWN_TIMEOUT_MS', () => {
    console.log(
      `after SIGTERM:\n${exits
        .map(
          (e) =>
            `  ${e.service} exited (${e.exit}) in ${e.tookMs} ms; stop: ${e.stop ? JSON.stringify({ ...e.stop, owed: e.stop.owed.length }) : 'none logged'}; ` +
            `client requests in flight: ${e.requestsInFlight}`,
        )
        .join('\n')}`,
    );
    expect([...new Set(exits.map((e) => e.service))]).toEqual(signalled.map(([service]) => service));
    expect(exits.filter((e) => e.exit !== '0')).toEqual([]);
    for (const { tookMs } of exits) expect(tookMs).toBeLessThan(STACK_SHUTDOWN_TIMEOUT_MS);
  });

  test('every stop logged its stages, and the stops of the gateway, payment and pix-adapter had work in hand (requests, messages or outbox rows)', () => {
    expect(exits.filter((e) => e.stop === undefined).map((e) => e.service)).toEqual([]);
    for (const service of ['api-gateway', 'payment', 'pix-adapter'])
      expect({ service, hadWork: exits.some((e) => e.service === service && stopHadWork(e)) }).toEqual({
        service,
        hadWork: true,
      });
  });

  test('the gateway answered every request it had when signalled: no reset, hang-up or closed connection', () => {
    const attempts = suite.run().targets.load.attempts;
    const held = exits
      .filter((e) => e.service === 'api-gateway')
      .flatMap((e) =>
        attempts.filter((a) => a.sentAt <= e.signalledAt - REQUEST_ACCEPTED_MS && a.endedAt > e.signalledAt),
      );
    expect(held.length).toBeGreaterThan(0);
    expect(held.filter((a) => typeof a.outcome !== 'number')).toEqual([]);
  });

  test('every message a stop had in hand was finished by that stop: none delivered again, none retried', () => {
    const { redelivered, retried, brokerRedeliveries, brokerRetries } = suite.result();
    const owed = exits.flatMap((e) => e.stop?.owed ?? []);
    const among = (messages: LoggedMessage[]) =>
      owed.filter((m) => messages.some((r) => r.queue === m.queue && r.message_id === m.message_id));
    console.log(
      `messages the stops owed: ${owed.length}; delivered again: ${redelivered.length} ` +
        '(what a quorum queue sends a consumer as its cancel takes effect, the broker hands back unseen: rabbitmq-server#3729)',
    );
    expect(owed.length).toBeGreaterThan(0);
    // Every redelivery and retry the surviving processes counted was logged, so the lists below are whole.
    expect(redelivered.length).toBeGreaterThanOrEqual(brokerRedeliveries);
    expect(retried.length).toBeGreaterThanOrEqual(brokerRetries);
    // A retry of a message no stop had in hand is the ledger waiting for an event of the same sum of money it took
    // out of order (money leaving suspense before its coming in is posted): by design, not a stop's doing.
    expect({ deliveredAgain: among(redelivered), retried: among(retried) }).toEqual({
      deliveredAgain: [],
      retried: [],
    });
  });
});
