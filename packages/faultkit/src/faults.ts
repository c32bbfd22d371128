import { type HttpProxy, letTimePass, waitFor } from '@gateway/testkit-core';
import { eventSubscriptions } from '@gateway/contracts';
import {
  eventQueueOf,
  jsonLogLines,
  metricsServices,
  type LoggedMessage,
  type MetricsService,
  type ReceiverMode,
  type RunningStack,
  type WebhookReceiver,
  withoutEventBindings,
} from '@gateway/testkit';
import type { DatabaseFaults } from './database-faults';
import type { DatabaseProxy } from './database-proxy';
import type { LoadGenerator, RequestKind } from './load';
import type { PrivateBroker } from './private-broker';
import type { PrivateRedis } from './private-redis';

/** Everything a fault may break; each belongs to this run alone. */
export interface FaultTargets {
  stack: RunningStack;
  broker: PrivateBroker;
  redis: PrivateRedis;
  database: DatabaseFaults;
  /** Between the services and PostgreSQL. */
  proxy: DatabaseProxy;
  /** Between the PIX adapter and the PSP simulator. */
  psp: HttpProxy;
  receiver: WebhookReceiver;
  /** The traffic, so a fault can strike while requests are under way. */
  load: LoadGenerator;
  /** In front of the gateway when the run asked for it (`stack.balancedGateway`): `stack.gatewayUrl` is its URL. */
  gatewayBalancer?: GatewayBalancer;
}

/** A load balancer in front of the gateway, sending each new request to the gateway process it is pointed at. */
export interface GatewayBalancer {
  url: string;
  pointAt(gatewayUrl: string): void;
  close(): Promise<void>;
}

/** One fault: `inject` breaks something, holds it, and gives it back (a killed process is restarted by the launcher). */
export interface Fault {
  name: string;
  /**
   * Whether the load's requests (payments, sandbox payments, payouts) pass through what it breaks (gateway, payment,
   * rails, ledger, broker, database, Redis).
   */
  reachesClients: boolean;
  inject(targets: FaultTargets): Promise<void>;
}

/** The services of the gateway (the PSP simulator and the local chain stand for systems outside it). */
export const gatewayServices = ['api-gateway', ...metricsServices] as const;
export type GatewayService = (typeof gatewayServices)[number];

/** The services a payment create, a sandbox payment or a payout (reserved by the ledger) passes through. */
const clientPath: readonly GatewayService[] = [
  'api-gateway',
  'payment',
  'pix-adapter',
  'solana-watcher',
  'ledger',
];

/** How long a service the test broke gets to answer its health check again. */
const BACK_UP_TIMEOUT_MS = 90_000;

function healthUrl(stack: RunningStack, service: GatewayService): string {
  return service === 'api-gateway'
    ? `${stack.gatewayUrl}/healthz`
    : `${stack.metricsUrls[service as MetricsService]}/healthz`;
}

/** Waits until the launcher runs a process of that name other than `formerPid`, and it answers its health check. */
async function waitUntilBack(stack: RunningStack, service: GatewayService, formerPid: number): Promise<void> {
  await waitFor(
    async () =>
      stack.pidOf(service) !== formerPid &&
      (await fetch(healthUrl(stack, service), { signal: AbortSignal.timeout(2000) })).ok,
    { timeoutMs: BACK_UP_TIMEOUT_MS, intervalMs: 250, what: `${service} to be restarted and healthy` },
  );
}

/** A request must have been under way this long for a kill to strike it past its start (claim taken, command sent). */
const MID_REQUEST_MS = 30;

/** Waits (a few seconds at most) until a request of `kind` is inside the stack, under way for `ms` at least. */
async function whileRequestInside(
  load: LoadGenerator,
  kind: RequestKind | undefined,
  ms = MID_REQUEST_MS,
): Promise<void> {
  if (kind)
    await waitFor(() => load.oldestAttemptInFlightMs(kind) >= ms, {
      timeoutMs: 10_000,
      intervalMs: 5,
    }).catch(() => undefined);
}

/**
 * kill -9; on the payments' path, while a request of `kind` is inside (if one comes within seconds): a create and a
 * sandbox payment must each survive a crash mid-way, retried by the client under the same key.
 */
export const kill9 = (service: GatewayService, during?: RequestKind): Fault => ({
  name: `kill -9 ${service}${during ? ` mid-${during}` : ''}`,
  reachesClients: clientPath.includes(service),
  inject: async ({ stack, load }) => {
    await whileRequestInside(load, during);
    const pid = stack.pidOf(service);
    process.kill(pid, 'SIGKILL');
    await waitUntilBack(stack, service, pid);
  },
});

/** What a stop said, in its log lines, it had to finish: its figures, or none when it logged no stop at all. */
export interface StopFigures {
  /** Messages being handled when it stopped taking work (`stop: stopped taking new work`). */
  messagesInFlight: number;
  /**
   * Those, and the ones delivered while its consumers were being cancelled (`stop: work in flight finished`): the stop
   * owes each an ack.
   */
  owed: LoggedMessage[];
  /** Outbox rows its last flush published (`stop: outbox flushed`). */
  published: number;
}

/** How a process sent SIGTERM ended, as the launcher reported it, and how long after the signal. */
export interface SignalledExit {
  service: GatewayService;
  /** The exit code (`0`: it stopped by itself, everything finished or handed back) or the signal that killed it. */
  exit: string;
  tookMs: number;
  signalledAt: number;
  stop?: StopFigures;
  /** Client requests under way for REQUEST_ACCEPTED_MS or more when the signal came: the gateway had them. */
  requestsInFlight: number;
}

/** Past any service's stop bound (SHUTDOWN_TIMEOUT_MS): a process still running then is reported as not exiting. */
const EXIT_TIMEOUT_MS = 60_000;

/**
 * A request sent this long before a signal reached the gateway before it (on the loopback, a busy machine included):
 * the gateway owes it an answer.
 */
export const REQUEST_ACCEPTED_MS = 50;

/** Whether a stop had work to finish or hand on: messages in hand, outbox rows, (the gateway) requests. */
export const stopHadWork = (exit: SignalledExit): boolean =>
  (exit.stop !== undefined && (exit.stop.messagesInFlight > 0 || exit.stop.published > 0)) ||
  (exit.service === 'api-gateway' && exit.requestsInFlight > 0);

/**
 * When a SIGTERM strikes: while a client request of a kind is inside the stack, or while the PIX adapter waits on the
 * PSP for a new charge (`PUT /cob/{txid}`): a message in its hands for certain, where a request's age only makes it
 * likely (its handling takes some 10 ms of a create's 50 or more, and a faster machine leaves it behind sooner).
 */
export type SignalMoment = RequestKind | 'psp-charge';

/** How slowly the PSP answers while a signal waits for a charge call: long enough for the signal to land within it. */
const PSP_CHARGE_DELAY_MS = 300;

/** Waits (a few seconds at most) until `moment`. */
async function untilMoment({ load, psp }: FaultTargets, moment: SignalMoment | undefined): Promise<void> {
  if (moment !== 'psp-charge') return whileRequestInside(load, moment, REQUEST_ACCEPTED_MS);
  // Held back long enough still for the signal to land within the call, on a busy machine too.
  await waitFor(() => psp.inFlightTo('PUT', /\/cob\//, PSP_CHARGE_DELAY_MS / 2) > 0, {
    timeoutMs: 10_000,
    intervalMs: 5,
  }).catch(() => undefined);
}

/**
 * SIGTERM, as an orchestrator stops a service (on the payments' path at the moment `during`): the process must stop by
 * itself, finishing or handing back what it holds, and the launcher start it again. How it exited goes to `exits`.
 * With `tries`, it is signalled again (once back) until a stop has work in hand, `tries` times at most: a stop with
 * nothing to do proves little.
 */
export const sigterm = (
  service: GatewayService,
  exits: SignalledExit[],
  during?: SignalMoment,
  tries = 1,
): Fault => ({
  name: `SIGTERM ${service}${during ? ` mid-${during}` : ''}${tries > 1 ? ` (until it has work in hand, ${tries} times at most)` : ''}`,
  reachesClients: clientPath.includes(service),
  inject: async (targets) => {
    const { stack, load, psp } = targets;
    if (during === 'psp-charge') psp.delayMs = PSP_CHARGE_DELAY_MS;
    try {
      for (let attempt = 1; attempt <= tries; attempt += 1) {
        await untilMoment(targets, during);
        const pid = stack.pidOf(service);
        const requestsInFlight = load.attemptsInFlightFor(REQUEST_ACCEPTED_MS);
        const signalledAt = Date.now();
        process.kill(pid, 'SIGTERM');
        const exit = await waitFor(() => stack.exitOf(pid), {
          timeoutMs: EXIT_TIMEOUT_MS,
          intervalMs: 20,
          what: `${service} to exit after SIGTERM`,
        });
        const tookMs = Date.now() - signalledAt;
        const signalled = {
          service,
          exit,
          tookMs,
          signalledAt,
          requestsInFlight,
          stop: await stopFigures(stack, pid),
        };
        exits.push(signalled);
        await waitUntilBack(stack, service, pid);
        // Signalled during a charge call, the PIX adapter must have had that message in hand.
        if (during === 'psp-charge' ? (signalled.stop?.messagesInFlight ?? 0) > 0 : stopHadWork(signalled))
          return;
      }
    } finally {
      psp.delayMs = 0;
    }
  },
});

/** The figures the stop of process `pid` logged (its output may trail its exit a little), if it logged its stop. */
async function stopFigures(stack: RunningStack, pid: number): Promise<StopFigures | undefined> {
  const lineOf = (msg: string) => jsonLogLines(stack).find((line) => line.pid === pid && line.msg === msg);
  const stopped = await waitFor(() => lineOf('stopped'), { timeoutMs: 2000, intervalMs: 50 }).catch(
    () => undefined,
  );
  if (!stopped) return undefined;
  const intakeStopped = lineOf('stop: stopped taking new work');
  const listed = (figure: unknown) => (figure as LoggedMessage[] | undefined) ?? [];
  return {
    messagesInFlight: Number(intakeStopped?.messagesInFlight ?? 0),
    // One delivered while the cancel was under way and still in hand at its end is in both lists: counted once.
    owed: [
      ...new Map(
        [
          ...listed(intakeStopped?.messages),
          ...listed(lineOf('stop: work in flight finished')?.messagesDeliveredWhileStopping),
        ].map((m) => [`${m.queue} ${m.message_id}`, m]),
      ).values(),
    ],
    published: Number(lineOf('stop: outbox flushed')?.published ?? 0),
  };
}

/** SIGSTOP, held past the service's timeouts (the gateway's RPC timeout, leases), then SIGCONT. */
export const freeze = (service: GatewayService, ms: number): Fault => ({
  name: `SIGSTOP ${service} for ${ms / 1000} s`,
  reachesClients: clientPath.includes(service),
  inject: async ({ stack }) => {
    const pid = stack.pidOf(service);
    process.kill(pid, 'SIGSTOP');
    try {
      await letTimePass(ms);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  },
});

export const brokerRestart = (downMs: number): Fault => ({
  name: `RabbitMQ stop_app, ${downMs / 1000} s, start_app`,
  reachesClients: true,
  inject: ({ broker }) => broker.restart(downMs),
});

/**
 * For a private broker that is a cluster: `count` faults, each killing (SIGKILL) the running node that leads the
 * busiest queues and that no fault before it killed, holding it down `ms` and starting it again. One node is down at a
 * time: a quorum queue of three members keeps its majority (brokerMajorityDown takes it away).
 */
export function brokerLeaderNodesDown(ms: number, count: number): Fault[] {
  const killed = new Set<string>();
  return Array.from({ length: count }, (_, n) => ({
    name: `RabbitMQ node leading the busiest queues${n > 0 ? ' (another one)' : ''} killed, ${ms / 1000} s down, started again`,
    reachesClients: true,
    inject: ({ broker }) => nodesDown(broker, 1, ms, killed),
  }));
}

/**
 * For a private broker of three nodes: the node leading the busiest queues and the next busiest killed together, so
 * every quorum queue has lost its majority for `ms` (no message taken or given until one comes back); then both are
 * started again.
 */
export const brokerMajorityDown = (ms: number): Fault => ({
  name: `two RabbitMQ nodes of three (the busiest queues' leaders) killed at once, ${ms / 1000} s down, started again`,
  reachesClients: true,
  inject: ({ broker }) => nodesDown(broker, 2, ms),
});

/** Kills the `count` running nodes leading the busiest queues (none of `except`, which gains them), all at once. */
async function nodesDown(
  broker: PrivateBroker,
  count: number,
  ms: number,
  except = new Set<string>(),
): Promise<void> {
  const chosen: number[] = [];
  for (let n = 0; n < count; n += 1) {
    const index = await broker.busiestLeader(except);
    except.add(broker.nodes[index]!.node);
    chosen.push(index);
  }
  await Promise.all(chosen.map((index) => broker.killNode(index)));
  try {
    await letTimePass(ms);
  } finally {
    await Promise.all(chosen.map((index) => broker.startNode(index)));
  }
}

/**
 * The events on their way to `service` lost in the broker for `ms`: its events queue's bindings removed, so the
 * broker drops every event published meanwhile for it (as a message lost in a crash or a binding gone would be), then
 * bound again.
 */
export const eventsLostOnTheWayTo = (service: MetricsService, ms: number): Fault => ({
  name: `every event on its way to ${service} dropped by the broker for ${ms / 1000} s (its bindings removed)`,
  reachesClients: false,
  inject: async ({ stack, broker }) => {
    const bindAgain = await withoutEventBindings(
      { AMQP_URL: broker.url, AMQP_PREFIX: stack.env.config.AMQP_PREFIX },
      service,
      eventSubscriptions[service],
    );
    try {
      await letTimePass(ms);
    } finally {
      await bindAgain();
    }
  },
});

/** What a consumer's first start found waiting in its events queue. */
export interface FirstStart {
  service: MetricsService;
  /** Messages in its events queue, none of them ever consumed, as it started. */
  waiting: number;
  startedAt: number;
}

/**
 * Early publish: `service` as before its first start. Its process is frozen and its connections closed (its consumers
 * gone), its events queue deleted (the broker forgets it and its bindings), and the payment service killed: its start
 * declares the whole topology, as a producer deployed before a new consumer does. The load's events then wait in the
 * queue declared for `service`, `minimumWaiting` of them at least; then the frozen process is killed and the launcher
 * starts `service` anew, which must handle every one of them. What it found goes to `starts`.
 */
export const firstStartAfterEvents = (
  service: MetricsService,
  minimumWaiting: number,
  starts: FirstStart[],
): Fault => ({
  name: `${service} as before its first start (queue deleted, the topology declared again by the payment service's start) while events are published, then started`,
  reachesClients: true,
  inject: async ({ stack, broker }) => {
    const pid = stack.pidOf(service);
    process.kill(pid, 'SIGSTOP');
    try {
      await broker.closeConnectionsOf(`${service}:${pid}`);
      const queue = eventQueueOf(stack.env.config.AMQP_PREFIX, service);
      await broker.deleteQueue(queue);
      const payment = stack.pidOf('payment');
      process.kill(payment, 'SIGKILL');
      await waitUntilBack(stack, 'payment', payment);
      const waiting = await waitFor(
        async () => {
          const depth = (await broker.queueDepths()).find((q) => q.name === queue)?.messages ?? 0;
          return depth >= minimumWaiting ? depth : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500, what: `${minimumWaiting} events waiting for ${service}` },
      );
      starts.push({ service, waiting, startedAt: Date.now() });
    } finally {
      process.kill(pid, 'SIGKILL');
    }
    await waitUntilBack(stack, service, pid);
  },
});

/** pg_terminate_backend of one service's connections, and its new ones refused for `ms`; the others go on. */
export const databaseCutOff = (service: GatewayService, ms: number): Fault => ({
  name: `pg_terminate_backend of ${service}'s connections, new ones refused for ${ms / 1000} s`,
  reachesClients: clientPath.includes(service),
  inject: ({ database }) => database.cutOff(service, ms),
});

export const databaseRefusesConnections = (ms: number): Fault => ({
  name: `database refusing connections for ${ms / 1000} s`,
  reachesClients: true,
  inject: ({ database }) => database.refuseConnections(ms),
});

export const redisDown = (ms: number): Fault => ({
  name: `Redis stopped for ${ms / 1000} s`,
  reachesClients: true,
  inject: async ({ redis }) => {
    await redis.stop();
    try {
      await letTimePass(ms);
    } finally {
      await redis.resume();
    }
  },
});

export const receiverMisbehaves = (mode: Exclude<ReceiverMode, 'ok'>, ms: number): Fault => ({
  name: `webhook receiver ${mode === 'error' ? 'answering 500' : mode === 'hang' ? 'hanging' : 'resetting connections'} for ${ms / 1000} s`,
  reachesClients: false,
  inject: async ({ receiver }) => {
    receiver.mode = mode;
    try {
      await letTimePass(ms);
    } finally {
      receiver.mode = 'ok';
    }
  },
});

/**
 * The issue's list, each once: what the fault suite injects. Faults in the payments' way alternate with faults
 * beside it, so a client always meets a stretch where it must get through.
 */
export function everyFault(timing: { rpcTimeoutMs: number; deliveryLeaseMs: number }): Fault[] {
  return [
    kill9('api-gateway', 'simulate'),
    kill9('checkout'),
    kill9('payment', 'create'),
    kill9('customer'),
    kill9('pix-adapter', 'create'),
    receiverMisbehaves('error', 8_000),
    kill9('solana-watcher', 'simulate'),
    kill9('webhook-dispatcher'),
    kill9('ledger'),
    brokerRestart(5_000),
    receiverMisbehaves('hang', 8_000),
    databaseCutOff('payment', 10_000),
    databaseCutOff('webhook-dispatcher', 10_000),
    databaseCutOff('ledger', 10_000),
    databaseRefusesConnections(30_000),
    freeze('webhook-dispatcher', timing.deliveryLeaseMs + 3_000),
    redisDown(8_000),
    receiverMisbehaves('reset', 8_000),
    freeze('payment', timing.rpcTimeoutMs + 3_000),
  ];
}
