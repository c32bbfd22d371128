import type { CommandDefinition, Reply } from '@gateway/contracts';
import { brokerUrls } from '@gateway/config';
import { Broker } from '@gateway/messaging';
import { testLogger, isolatedEnvironment, type IsolatedEnvironment, waitFor } from '@gateway/testkit-core';

/** A client broker on a config's prefix, talking to the services there as the other services would. */
export function connectTestClient(
  config: { AMQP_URL?: string; AMQP_URLS?: string[]; AMQP_PREFIX: string },
  connectionName: string,
): Promise<Broker> {
  return Broker.connect({
    urls: brokerUrls(config),
    prefix: config.AMQP_PREFIX,
    connectionName,
    logger: testLogger(connectionName),
  });
}

/** What a test bed needs of the service it runs: a `ServiceRuntime`, or anything built on one. */
export interface TestedService {
  broker: Broker;
  stop(): Promise<void>;
}

export interface TestBedCleanup {
  /** Runs `step` as the bed closes, once the service stopped and the topology is gone (last added first). */
  afterStop(step: () => Promise<void>): void;
}

/** How long a test waits for a service's reply to a command unless it says otherwise. */
export const REPLY_TIMEOUT_MS = 5000;

export interface ServiceTestBed<S extends TestedService> {
  env: IsolatedEnvironment;
  /** The service under test; a test that restarts it puts the new one here, and `close` stops that one. */
  service: S;
  /** Sends the service commands and publishes it events. */
  client: Broker;
  /** Sends a command from `client` and answers its reply (waiting `REPLY_TIMEOUT_MS` unless told). */
  request<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    options?: { messageId?: string; timeoutMs?: number },
  ): Promise<Reply<R>>;
  /** Another client broker (a fake downstream service, a listener); `close` cleans it up like `client`. */
  connect(connectionName: string): Promise<Broker>;
  /** Stops the service, closes the clients, deletes every broker's topology and drops the database. */
  close(): Promise<void>;
}

/**
 * One test file's service started in-process on a private database, broker prefix and Redis prefix, with a
 * client broker. `start` may set up what the service needs around it and register its clean-up with `afterStop`.
 */
export async function serviceTestBed<S extends TestedService>(
  label: string,
  start: (env: IsolatedEnvironment, cleanup: TestBedCleanup) => Promise<S>,
): Promise<ServiceTestBed<S>> {
  const env = await isolatedEnvironment(label);
  const afterStop: Array<() => Promise<void>> = [];
  const clients: Broker[] = [];
  const connect = async (connectionName: string): Promise<Broker> => {
    const broker = await connectTestClient(env.config, connectionName);
    clients.push(broker);
    return broker;
  };
  const bed: ServiceTestBed<S> = {
    env,
    service: await start(env, { afterStop: (step) => afterStop.unshift(step) }),
    client: await connect(`${label}-test-client`),
    request: (definition, payload, options = {}) =>
      bed.client.request(definition, payload, { timeoutMs: REPLY_TIMEOUT_MS, ...options }),
    connect,
    async close() {
      await bed.service.stop();
      for (const client of clients) await client.close();
      // What `start` set up around the service (another service, a rail) stops too, before any name is deleted.
      for (const step of afterStop) await step();
      // Only once nothing is connected: a publisher or consumer meeting a deleted name would redeclare it. On the node
      // itself, since a proxy the service reached it through may be closed by now.
      for (const broker of [bed.service.broker, ...clients])
        await broker.deleteDeclaredTopology(env.config.AMQP_URL);
      await env.database.drop();
    },
  };
  return bed;
}

/**
 * Sends a request until it is answered ok, for tests that cut a broker connection: each attempt may be lost
 * while the connection is down, so callers resend with the same message id and the inbox runs the command once.
 */
export function untilAnsweredOk<T extends { ok: boolean }>(
  send: () => Promise<T>,
  what = 'a reply after reconnect',
): Promise<T & { ok: true }> {
  return waitFor(
    async () => {
      const reply = await send().catch(() => undefined);
      return reply?.ok ? (reply as T & { ok: true }) : undefined;
    },
    { timeoutMs: 15_000, what },
  );
}
