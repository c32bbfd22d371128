import {
  DEVELOPMENT_ADMIN_TOKEN,
  Joi,
  commonEnv,
  loadConfig,
  sandboxDefault,
  secret,
  telemetryEnv,
  variableNames,
  type TelemetryConfig,
} from '@gateway/config';
import { parseSealingKey } from '@gateway/persistence';

/**
 * The dashboard is a client of the gateway's HTTP API: it exchanges no message, so it reads no broker setting (the
 * block every other service reads, `serviceEnv`, would make a production start require an AMQP_URL it never uses).
 * It keeps the rest of that block: environment, logs, its database, the stop bound, tracing.
 */
export interface DashboardConfig extends Partial<TelemetryConfig> {
  APP_ENV: 'sandbox' | 'production';
  LOG_LEVEL: string;
  DATABASE_URL: string;
  DATABASE_POOL_SIZE?: number;
  SHUTDOWN_TIMEOUT_MS?: number;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  /** Where the web app listens (default 3080); /healthz and /readyz are served there too. */
  DASHBOARD_PORT: number;
  /** The gateway's address, for its public API (/v1) and its operator API (/admin/v1). */
  GATEWAY_URL: string;
  /** The operator token the dashboard creates businesses and manages their keys with. */
  ADMIN_TOKEN: string;
  /** Base64 of the 32-byte AES-256-GCM key that seals each business's dashboard API key at rest. */
  DASHBOARD_SEAL_KEY: string;
  /** How long a session lives without a request (seconds). */
  SESSION_IDLE_SECONDS: number;
  /** Failed sign-ins of one e-mail address before it is locked. */
  LOGIN_MAX_FAILURES: number;
  /** How long a lock lasts, and the window the failures are counted in (seconds). */
  LOGIN_LOCK_SECONDS: number;
  /** Sign-in attempts one client address may make per minute, whatever the e-mail. */
  LOGIN_ATTEMPTS_PER_MINUTE: number;
  /** The dashboard's address as people reach it: the links mailed to them start with it. */
  DASHBOARD_PUBLIC_URL: string;
  /** Where mail is sent: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://...:465`. */
  SMTP_URL: string;
  /** The sender of its mails, e.g. `Painel <painel@example.com>`. */
  MAIL_FROM: string;
  /** Express `trust proxy`, so the client address behind a load balancer is the caller's (default `false`). */
  TRUST_PROXY: boolean | number | string;
}

const DEVELOPMENT_SEAL_KEY = Buffer.from('dev-only-dashboard-api-keys-seal').toString('base64');

const schema = Joi.object<DashboardConfig>({
  APP_ENV: commonEnv.APP_ENV,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  DATABASE_URL: commonEnv.DATABASE_URL,
  DATABASE_POOL_SIZE: commonEnv.DATABASE_POOL_SIZE,
  SHUTDOWN_TIMEOUT_MS: commonEnv.SHUTDOWN_TIMEOUT_MS,
  ...telemetryEnv,
  REDIS_URL: commonEnv.REDIS_URL,
  REDIS_PREFIX: commonEnv.REDIS_PREFIX,
  DASHBOARD_PORT: Joi.number().port().default(3080),
  GATEWAY_URL: sandboxDefault(Joi.string().uri({ scheme: ['http', 'https'] }), 'http://127.0.0.1:3000'),
  // The gateway's own rule for it (at least 32 characters) is checked by the gateway; here it only must be there.
  ADMIN_TOKEN: secret(DEVELOPMENT_ADMIN_TOKEN, Joi.string().min(32)),
  DASHBOARD_SEAL_KEY: secret(DEVELOPMENT_SEAL_KEY).custom((value: string) => {
    parseSealingKey(value);
    return value;
  }),
  SESSION_IDLE_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(86_400)
    .default(8 * 3600),
  LOGIN_MAX_FAILURES: Joi.number().integer().min(1).max(100).default(5),
  LOGIN_LOCK_SECONDS: Joi.number()
    .integer()
    .min(1)
    .max(86_400)
    .default(15 * 60),
  LOGIN_ATTEMPTS_PER_MINUTE: Joi.number().integer().min(1).default(30),
  // Never taken from a request's Host header: a forged one would mail people links to someone else's site.
  // In the sandbox, the address it listens on locally (DASHBOARD_PORT's).
  DASHBOARD_PUBLIC_URL: sandboxDefault(
    Joi.string().uri({ scheme: ['http', 'https'] }),
    Object.assign((parent: { DASHBOARD_PORT: number }) => `http://127.0.0.1:${parent.DASHBOARD_PORT}`, {
      shown: '`http://127.0.0.1:<DASHBOARD_PORT>`',
    }),
  ),
  // The sandbox's mail catcher (`npm start` runs it); production names its own relay, which may hold a password.
  SMTP_URL: sandboxDefault(Joi.string().uri({ scheme: ['smtp', 'smtps'] }), 'smtp://127.0.0.1:1025'),
  MAIL_FROM: sandboxDefault(Joi.string().min(3).max(200), 'Painel do gateway <painel@gateway.localhost>'),
  TRUST_PROXY: Joi.alternatives()
    .try(Joi.boolean(), Joi.number().integer().min(0), Joi.string().min(1))
    .default(false),
});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as dashboardConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const dashboardVariables = variableNames(schema);

export function loadDashboardConfig(env: NodeJS.ProcessEnv = process.env): DashboardConfig {
  return loadConfig(schema, env);
}
