import type { DataSource } from 'typeorm';
import type { ServiceName } from '@gateway/contracts';
import { createLogger, type Logger } from '@gateway/observability';
import { openServiceDatabase, type ServiceDatabaseOptions } from '@gateway/persistence';
import { Broker } from './broker';
import { serveMetrics } from './metrics-server';
import { OutboxRelay } from './outbox-relay';
import { PeriodicTask } from './periodic-task';
import { UnitOfWork } from './unit-of-work';
import { outboxInboxMigrations } from './outbox-inbox-migration';

/** The connection settings every service reads from its config. */
export interface RuntimeConfig {
  DATABASE_URL: string;
  AMQP_URL: string;
  AMQP_PREFIX: string;
  LOG_LEVEL: string;
  /** When set, `/metrics` (Prometheus) and `/healthz` are served on this port. */
  METRICS_PORT?: number;
  /** The interface the metrics listener binds (loopback by default). */
  METRICS_HOST?: string;
  /** How long a message failing transiently is retried before it is parked (default: one hour). */
  BROKER_RETRY_MAX_MS?: number;
  /** Unacked messages each consumer takes at once (default 16). */
  BROKER_PREFETCH?: number;
  /** PostgreSQL connections this process keeps at most (default 10). */
  DATABASE_POOL_SIZE?: number;
}

/** How often a service reports how many of its messages are parked (`broker_parked_messages`). */
const PARKED_GAUGE_INTERVAL_MS = 30_000;

export interface ServiceRuntimeOptions {
  service: ServiceName;
  config: RuntimeConfig;
  /** The schema this service owns. */
  schema: string;
  entities: ServiceDatabaseOptions['entities'];
  /** The service's own migrations; the outbox/inbox migrations are added in front. */
  migrations: Array<new () => unknown>;
  logger?: Logger;
}

/** What a running service holds: its database, its broker connection, its outbox relay. */
export interface ServiceRuntime {
  service: ServiceName;
  logger: Logger;
  dataSource: DataSource;
  broker: Broker;
  relay: OutboxRelay;
  /** A unit of work whose inbox is namespaced by `consumer`; its commits nudge the relay. */
  unitOfWork(consumer: string): UnitOfWork;
  /** Extra shutdown steps (schedulers, HTTP servers), run before the broker and database close. */
  onStop(step: () => Promise<void>): void;
  stop(): Promise<void>;
}

function databaseOptions(options: ServiceRuntimeOptions): ServiceDatabaseOptions {
  return {
    url: options.config.DATABASE_URL,
    schema: options.schema,
    entities: options.entities,
    migrations: [...outboxInboxMigrations, ...options.migrations],
    poolSize: options.config.DATABASE_POOL_SIZE,
  };
}

/** Migrates this service's schema and returns (for the `migrate` command). */
export async function migrateServiceDatabase(options: ServiceRuntimeOptions): Promise<void> {
  const dataSource = await openServiceDatabase(databaseOptions(options));
  await dataSource.destroy();
}

/** Opens database (migrating it), broker and outbox relay for one service process. */
export async function openServiceRuntime(options: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const logger = options.logger ?? createLogger(options.service, options.config.LOG_LEVEL);
  const dataSource = await openServiceDatabase(databaseOptions(options));
  const broker = await Broker.connect({
    url: options.config.AMQP_URL,
    prefix: options.config.AMQP_PREFIX,
    connectionName: `${options.service}:${process.pid}`,
    logger,
    prefetch: options.config.BROKER_PREFETCH,
    retry:
      options.config.BROKER_RETRY_MAX_MS === undefined
        ? undefined
        : { retryForMs: options.config.BROKER_RETRY_MAX_MS },
  });
  const relay = new OutboxRelay(dataSource, broker, { logger });
  relay.start();
  const parkedGauge = new PeriodicTask(
    async () => {
      if (broker.connected) await broker.listParked([options.service]);
    },
    { name: 'parked-gauge', intervalMs: PARKED_GAUGE_INTERVAL_MS, logger },
  );
  parkedGauge.start();
  const stopSteps: Array<() => Promise<void>> = [() => parkedGauge.stop()];
  if (options.config.METRICS_PORT !== undefined) {
    const host = options.config.METRICS_HOST ?? '127.0.0.1';
    const server = await serveMetrics(options.config.METRICS_PORT, host, () => broker.connected);
    logger.info({ host, port: options.config.METRICS_PORT }, 'metrics served');
    stopSteps.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  }
  return {
    service: options.service,
    logger,
    dataSource,
    broker,
    relay,
    unitOfWork(consumer) {
      const uow = new UnitOfWork(dataSource, consumer);
      uow.onCommitWithMessages(() => relay.nudge());
      return uow;
    },
    onStop(step) {
      stopSteps.push(step);
    },
    async stop() {
      for (const step of stopSteps.reverse())
        await step().catch((err) => logger.warn({ err }, 'stop step failed'));
      await broker.close();
      await relay.stop();
      await dataSource.destroy();
    },
  };
}

/** Runs a service until SIGINT/SIGTERM, then stops it gracefully (in-flight messages finish, nothing is lost). */
export function runUntilSignal(start: () => Promise<{ stop(): Promise<void> }>, logger: Logger): void {
  start()
    .then((running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'stopping');
        running.stop().then(
          () => process.exit(0),
          (err) => {
            logger.error({ err }, 'stop failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => shutdown('SIGINT'));
      process.on('SIGTERM', () => shutdown('SIGTERM'));
    })
    .catch((err: unknown) => {
      logger.fatal({ err }, 'failed to start');
      process.exit(1);
    });
}
