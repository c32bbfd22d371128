import type { DataSource } from 'typeorm';
import type { ServiceName } from '@gateway/contracts';
import { brokerUrls, DEFAULT_SHUTDOWN_TIMEOUT_MS, type MetricsEnv, type ServiceEnv } from '@gateway/config';
import { createLogger, flushTelemetry, metricsRegistry, type Logger } from '@gateway/observability';
import {
  Broker,
  OutboxRelay,
  outboxInboxMigrations,
  PeriodicTask,
  UnitOfWork,
  type MessageInFlight,
} from '@gateway/messaging';
import {
  connectServiceDatabase,
  openServiceDatabase,
  type ServiceDatabaseOptions,
} from '@gateway/persistence';
import { serveMetrics } from './metrics-server';
import { runShutdown, ShutdownTimeoutError, stopLogger, type ShutdownStage } from './shutdown';

/** What the runtime uses of the block every service's config reads (@gateway/config `serviceEnv`, `metricsEnv`). */
export type RuntimeConfig = Pick<
  ServiceEnv,
  | 'DATABASE_URL'
  | 'AMQP_URL'
  | 'AMQP_URLS'
  | 'AMQP_PREFIX'
  | 'LOG_LEVEL'
  | 'BROKER_RETRY_MAX_MS'
  | 'BROKER_PREFETCH'
  | 'DATABASE_POOL_SIZE'
  | 'SHUTDOWN_TIMEOUT_MS'
> &
  Partial<MetricsEnv>;

/** How often a service reports its parked messages and the retry backlog (`broker_parked_messages`, ...). */
const PARKED_GAUGE_INTERVAL_MS = 30_000;

export interface ServiceRuntimeOptions {
  service: ServiceName;
  config: RuntimeConfig;
  /** The schema this service owns. */
  schema: string;
  entities: ServiceDatabaseOptions['entities'];
  /** The service's own migrations; the outbox/inbox migrations are added in front. */
  migrations: Array<new () => unknown>;
  /**
   * Who migrates the schema, when not the connection the service serves with (DATABASE_URL): a URL, the owner of the
   * schema's tables, which migrates at start and is then closed; null, nobody at start (the `migrate` command ran
   * before, and the start refuses a schema not migrated). Unset: DATABASE_URL migrates and serves.
   */
  migrationUrl?: string | null;
  /**
   * Run on the serving connection before any work is taken: a rejection stops the start (e.g. a connection allowed
   * more than the service needs).
   */
  checkDatabase?: (dataSource: DataSource) => Promise<void>;
  logger?: Logger;
  /**
   * Whether the events the service binds handlers to must be exactly its `eventSubscriptions` (BrokerOptions
   * `exactSubscriptions`). Every service: true, the default; false only for a test's sample service.
   */
  exactSubscriptions?: boolean;
}

/** What a running service holds: its database, its broker connection, its outbox relay. */
export interface ServiceRuntime {
  service: ServiceName;
  logger: Logger;
  dataSource: DataSource;
  broker: Broker;
  relay: OutboxRelay;
  /** The unit of work whose inbox is namespaced by `consumer` (one per name); its commits nudge the relay. */
  unitOfWork(consumer: string): UnitOfWork;
  /**
   * A source of work besides the broker's consumers (a scheduler, an HTTP listener): `stop` must stop it taking new
   * work at once and resolve once the work it started has finished. All are stopped together with the consumers.
   */
  onStop(name: string, stop: () => Promise<void>): void;
  /** A resource the work uses (an HTTP client, Redis): released once all work has finished, last registered first. */
  onClose(name: string, close: () => Promise<void>): void;
  /**
   * Stops within SHUTDOWN_TIMEOUT_MS: takes no new work, lets the work in flight finish (deliveries not yet started go
   * back to their queue), publishes what the outbox holds, releases resources, closes broker and database, flushes
   * telemetry; one log line per stage. Past the bound it drops the broker connection (the broker redelivers what was
   * unacked) and rejects with ShutdownTimeoutError. Called again, it returns the same stop.
   */
  stop(): Promise<void>;
}

interface NamedStep {
  name: string;
  run: () => Promise<void>;
}

function databaseOptions(
  options: ServiceRuntimeOptions,
  url = options.config.DATABASE_URL,
): ServiceDatabaseOptions {
  return {
    url,
    schema: options.schema,
    entities: options.entities,
    migrations: [...outboxInboxMigrations, ...options.migrations],
    poolSize: options.config.DATABASE_POOL_SIZE,
  };
}

/** Migrates this service's schema and returns (for the `migrate` command). */
export async function migrateServiceDatabase(options: ServiceRuntimeOptions): Promise<void> {
  if (options.migrationUrl === null) throw new Error(`${options.service}: no connection to migrate with`);
  const dataSource = await openServiceDatabase(databaseOptions(options, options.migrationUrl));
  await dataSource.destroy();
}

/** The serving DataSource: migrated through it, or by the migration connection first (see `migrationUrl`). */
async function openRuntimeDatabase(options: ServiceRuntimeOptions): Promise<DataSource> {
  if (options.migrationUrl === undefined) return openServiceDatabase(databaseOptions(options));
  if (options.migrationUrl !== null) await migrateServiceDatabase(options);
  return connectServiceDatabase(databaseOptions(options));
}

/** Opens database (migrating it), broker and outbox relay for one service process. */
export async function openServiceRuntime(options: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const logger = options.logger ?? createLogger(options.service, options.config.LOG_LEVEL);
  // Every series says which service it is from, wherever it is scraped (compose, Kubernetes, the launcher).
  metricsRegistry.setDefaultLabels({ service: options.service });
  const dataSource = await openRuntimeDatabase(options);
  if (options.checkDatabase)
    await options.checkDatabase(dataSource).catch(async (err: unknown) => {
      await dataSource.destroy();
      throw err;
    });
  const broker = await Broker.connect({
    urls: brokerUrls(options.config),
    prefix: options.config.AMQP_PREFIX,
    connectionName: `${options.service}:${process.pid}`,
    logger,
    prefetch: options.config.BROKER_PREFETCH,
    wholeTopology: true,
    exactSubscriptions: options.exactSubscriptions ?? true,
    retry:
      options.config.BROKER_RETRY_MAX_MS === undefined
        ? undefined
        : { retryForMs: options.config.BROKER_RETRY_MAX_MS },
  });
  const relay = new OutboxRelay(dataSource, broker, { logger });
  relay.start();
  const parkedGauge = new PeriodicTask(
    async () => {
      if (!broker.connected) return;
      await broker.measureParked(options.service);
      await broker.measureRetryBacklog();
    },
    { name: 'parked-gauge', intervalMs: PARKED_GAUGE_INTERVAL_MS, logger },
  );
  parkedGauge.start();
  const sources: NamedStep[] = [{ name: 'parked-gauge', run: () => parkedGauge.stop() }];
  const resources: NamedStep[] = [];
  if (options.config.METRICS_PORT !== undefined) {
    const host = options.config.METRICS_HOST ?? '127.0.0.1';
    const listener = await serveMetrics(options.config.METRICS_PORT, host, () => broker.connected);
    logger.info({ host, port: options.config.METRICS_PORT }, 'metrics served');
    // Released last: /healthz answers while the work finishes.
    resources.push({ name: 'metrics listener', run: listener.stop });
  }
  let stopping: Promise<void> | undefined;
  const unitsOfWork = new Map<string, UnitOfWork>();
  return {
    service: options.service,
    logger,
    dataSource,
    broker,
    relay,
    unitOfWork(consumer) {
      let uow = unitsOfWork.get(consumer);
      if (!uow) {
        uow = new UnitOfWork(dataSource, consumer);
        uow.onCommitWithMessages(() => relay.nudge());
        unitsOfWork.set(consumer, uow);
      }
      return uow;
    },
    onStop(name, stop) {
      sources.push({ name, run: stop });
    },
    onClose(name, close) {
      resources.push({ name, run: close });
    },
    stop() {
      stopping ??= runShutdown(
        shutdownStages({ logger, broker, relay, dataSource, sources, resources: [...resources].reverse() }),
        {
          timeoutMs: options.config.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
          logger,
          // The broker redelivers what was unacked; the relay's claims run out and any relay publishes them.
          abandon: async () => {
            await Promise.all([broker.disconnect(), relay.stop()]);
          },
          // Outside the bound, after a stop out of time too (its spans say what was abandoned); flushTelemetry bounds
          // itself.
          last: {
            name: 'telemetry flushed',
            run: () => flushTelemetry(),
            pending: () => ['exporting telemetry'],
          },
        },
      );
      return stopping;
    },
  };
}

/** `payment.events: payment.created.v1 msg_123 (running 12034 ms)` */
/** A message as a stop's log line names it: its queue and id. */
function messageReference({ queue, messageId }: MessageInFlight): { queue: string; message_id: string } {
  return { queue, message_id: messageId };
}

function describeMessage(message: MessageInFlight): string {
  const runningMs = Date.now() - message.startedAt;
  return `${message.queue}: ${message.message} ${message.messageId} (running ${runningMs} ms)`;
}

/** A service's stop, stage by stage (see ServiceRuntime.stop). */
function shutdownStages(parts: {
  logger: Logger;
  broker: Broker;
  relay: OutboxRelay;
  dataSource: DataSource;
  sources: NamedStep[];
  resources: NamedStep[];
}): ShutdownStage[] {
  const { logger, broker, relay, dataSource } = parts;
  const unfinished = new Set<string>();
  /** Runs a step, tracked in `unfinished` while it runs; a failure is logged and does not stop the others. */
  const tracked = async ({ name, run }: NamedStep): Promise<void> => {
    unfinished.add(name);
    try {
      await run();
    } catch (err) {
      logger.warn({ err, step: name }, 'stop step failed');
    } finally {
      unfinished.delete(name);
    }
  };
  let sourcesStopped: Promise<unknown> = Promise.resolve();
  return [
    {
      name: 'stopped taking new work',
      run: async () => {
        // Each source stops taking work at once; the work it started is waited for in the next stage.
        sourcesStopped = Promise.all(parts.sources.map(tracked));
        await broker.stopConsuming();
        // Which messages this stop owes: each must be finished and acked, never handed to another process.
        const inHand = broker.messagesInFlight();
        return { messagesInFlight: inHand.length, messages: inHand.map(messageReference) };
      },
      pending: () => ['cancelling the broker consumers'],
    },
    {
      name: 'work in flight finished',
      run: async () => {
        await Promise.all([broker.drain(), sourcesStopped]);
        // Delivered while the consumers were being cancelled: handled here too, so owed like those in hand.
        const late = broker.messagesTakenWhileStopping();
        return late.length > 0 ? { messagesDeliveredWhileStopping: late.map(messageReference) } : undefined;
      },
      pending: () => [...broker.messagesInFlight().map(describeMessage), ...unfinished],
    },
    {
      name: 'outbox flushed',
      run: async () => {
        await relay.stop();
        return { published: await relay.flush() };
      },
      pending: () => ['publishing the outbox'],
    },
    {
      name: 'resources released',
      run: async () => {
        for (const resource of parts.resources) await tracked(resource);
      },
      pending: () => [...unfinished],
    },
    { name: 'broker closed', run: () => broker.close(), pending: () => ['closing the broker connection'] },
    {
      name: 'database closed',
      run: () => dataSource.destroy(),
      pending: () => ['closing the database pool'],
    },
  ];
}

/** The exit code of a process stopped by a second Ctrl-C (128 + SIGINT), as shells report it. */
const INTERRUPTED_EXIT_CODE = 130;

/**
 * Runs a service until SIGINT/SIGTERM, then stops it gracefully (see ServiceRuntime.stop) and exits: 0 once stopped,
 * 1 when the stop ran out of time or failed (what was unacked is redelivered, as after a crash). The signals are
 * handled from the start: one that comes while the service starts stops it once started. While stopping, another
 * SIGTERM (an orchestrator repeating itself) is logged and changes nothing; another SIGINT (Ctrl-C twice) exits at
 * once.
 */
export function runUntilSignal(start: () => Promise<{ stop(): Promise<void> }>, serviceLogger: Logger): void {
  const logger = stopLogger(serviceLogger);
  let running: { stop(): Promise<void> } | undefined;
  /** The signal that asked for the stop, once one did. */
  let stopSignal: string | undefined;
  const stop = (service: { stop(): Promise<void> }) =>
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        // Out of time, the stop has logged what still ran.
        if (!(err instanceof ShutdownTimeoutError)) logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (stopSignal !== undefined) {
      if (signal === 'SIGINT') {
        logger.warn({ signal }, 'interrupted again: exiting at once, what was unacked is redelivered');
        process.exit(INTERRUPTED_EXIT_CODE);
      }
      logger.warn({ signal }, 'already stopping');
      return;
    }
    stopSignal = signal;
    if (running) {
      logger.info({ signal }, 'stopping');
      void stop(running);
    } else logger.info({ signal }, 'stopping once started');
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  start()
    .then((service) => {
      running = service;
      if (stopSignal === undefined) return;
      logger.info({ signal: stopSignal }, 'stopping');
      void stop(service);
    })
    .catch((err: unknown) => {
      logger.fatal({ err }, 'failed to start');
      process.exit(1);
    });
}
