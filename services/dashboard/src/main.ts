// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, loadOrExit } from '@gateway/config';
import { createLogger, flushTelemetry, type Logger } from '@gateway/observability';
import { openServiceDatabase, parseSealingKey } from '@gateway/persistence';
import { gracefulHttpStop, runShutdown, runUntilSignal } from '@gateway/service-runtime';
import { markDashboardKeys } from './application/mark-dashboard-keys';
import { BusinessApi } from './clients/business-api';
import { GatewayAdmin } from './clients/gateway-admin';
import { Mailer } from './clients/mailer';
import { loadDashboardConfig, type DashboardConfig } from './config';
import { createDashboardApp } from './http/app';
import { dashboardDatabase } from './persistence';

export interface RunningDashboard {
  /** Where it listens, e.g. `http://127.0.0.1:3080`. */
  url: string;
  stop(): Promise<void>;
}

/** Opens its database (migrated) and Redis, and serves the web app on DASHBOARD_PORT (0 picks a free port). */
export async function startDashboard(config: DashboardConfig, logger?: Logger): Promise<RunningDashboard> {
  const log = logger ?? createLogger('dashboard', config.LOG_LEVEL);
  const dataSource = await openServiceDatabase({
    url: config.DATABASE_URL,
    ...dashboardDatabase,
    poolSize: config.DATABASE_POOL_SIZE,
  });
  // Fails fast while Redis is away (a page answers 500 at once rather than hanging); reconnects in the background.
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    connectTimeout: 1000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis error'));
  await redis.connect().catch(() => undefined);
  const mailer = new Mailer(config.SMTP_URL, config.MAIL_FROM);
  const admin = new GatewayAdmin(config.GATEWAY_URL, config.ADMIN_TOKEN);
  const app = createDashboardApp({
    config,
    dataSource,
    redis,
    admin,
    api: new BusinessApi(config.GATEWAY_URL, parseSealingKey(config.DASHBOARD_SEAL_KEY)),
    sealKey: parseSealingKey(config.DASHBOARD_SEAL_KEY),
    mailer,
    logger: log,
  });
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, app).listen(
    config.DASHBOARD_PORT,
  );
  const stopServing = gracefulHttpStop(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  log.info({ port }, 'dashboard listening');
  // Keys given before keys had a purpose: marked as the dashboard's in the background (the rest at the next start).
  void markDashboardKeys({ dataSource, admin, logger: log }).catch((err: unknown) =>
    log.warn({ err: String(err) }, 'dashboard keys not marked'),
  );
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      stopping ??= runShutdown(
        [
          { name: 'http listener', run: stopServing },
          { name: 'redis', run: async () => redis.disconnect() },
          { name: 'mailer', run: async () => mailer.close() },
          { name: 'database', run: () => dataSource.destroy() },
        ],
        {
          timeoutMs: config.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
          logger: log,
          abandon: async () => {
            server.closeAllConnections();
            redis.disconnect();
          },
          last: { name: 'telemetry flushed', run: () => flushTelemetry() },
        },
      );
      return stopping;
    },
  };
}

if (require.main === module) {
  const config = loadOrExit(loadDashboardConfig);
  const logger = createLogger('dashboard', config.LOG_LEVEL);
  runUntilSignal(() => startDashboard(config, logger), logger);
}
