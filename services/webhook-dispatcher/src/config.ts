import { hostname } from 'node:os';
import { Joi, commonEnv, loadConfig, variableNames, secret } from '@gateway/config';
import { parseSealingKey } from '@gateway/persistence';
import { parseRetrySchedule } from './domain/retry-schedule';

export interface WebhookDispatcherConfig {
  APP_ENV: 'sandbox' | 'production';
  LOG_LEVEL: string;
  DATABASE_URL: string;
  AMQP_URL: string;
  AMQP_PREFIX: string;
  /** Serves /metrics and /healthz on this port when set. */
  METRICS_PORT?: number;
  METRICS_HOST: string;
  /** How long a message failing transiently is retried before it is parked. */
  BROKER_RETRY_MAX_MS?: number;
  /** Unacked messages each consumer takes at once. */
  BROKER_PREFETCH?: number;
  /** PostgreSQL connections this process keeps at most. */
  DATABASE_POOL_SIZE?: number;
  /** Base64 of the 32-byte AES-256-GCM key that seals webhook secrets at rest. */
  WEBHOOK_SECRET_KEY: string;
  /** Overrides the decisions.md schedule, e.g. `1s,2s,4s` (units ms, s, m, h, d). */
  WEBHOOK_RETRY_SCHEDULE?: string;
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: number;
  DELIVERY_POLL_INTERVAL_MS: number;
  DELIVERY_LEASE_MS: number;
  WORKER_ID: string;
}

const DEVELOPMENT_SECRET_KEY = Buffer.from('dev-only-webhook-secret-key-32b!').toString('base64');

const secretKey = secret(DEVELOPMENT_SECRET_KEY).custom((value: string) => {
  parseSealingKey(value);
  return value;
});

const retrySchedule = Joi.string().custom((value: string) => {
  parseRetrySchedule(value);
  return value;
});

const schema = Joi.object<WebhookDispatcherConfig>({
  APP_ENV: commonEnv.APP_ENV,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  DATABASE_URL: commonEnv.DATABASE_URL,
  AMQP_URL: commonEnv.AMQP_URL,
  AMQP_PREFIX: commonEnv.AMQP_PREFIX,
  METRICS_PORT: commonEnv.METRICS_PORT,
  METRICS_HOST: commonEnv.METRICS_HOST,
  BROKER_RETRY_MAX_MS: commonEnv.BROKER_RETRY_MAX_MS,
  BROKER_PREFETCH: commonEnv.BROKER_PREFETCH,
  DATABASE_POOL_SIZE: commonEnv.DATABASE_POOL_SIZE,
  WEBHOOK_SECRET_KEY: secretKey,
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Joi.boolean().when('APP_ENV', {
    is: 'production',
    then: Joi.boolean().default(false),
    otherwise: Joi.boolean().default(true),
  }),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(10_000),
  WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: Joi.number().integer().min(1).max(100).default(4),
  DELIVERY_POLL_INTERVAL_MS: Joi.number().integer().min(10).max(60_000).default(500),
  // A lease shorter than one attempt would let another replica send the same attempt while it is in flight.
  DELIVERY_LEASE_MS: Joi.number().integer().greater(Joi.ref('WEBHOOK_TIMEOUT_MS')).default(60_000),
  WORKER_ID: Joi.string().max(200).default(`${hostname()}:${process.pid}`),
});

/** The variables this service reads (the launcher hands it these and no others). */
export const webhookDispatcherVariables = variableNames(schema);

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env): WebhookDispatcherConfig {
  return loadConfig(schema, env);
}
