import { hostname } from 'node:os';
import {
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  Joi,
  loadConfig,
  requireStopOutlasts,
  secret,
  serviceSchema,
  variableNames,
  type ServiceConfig,
} from '@gateway/config';
import { EVENT_LOG_PAGE_MAX } from '@gateway/contracts';
import { parseSealingKey } from '@gateway/persistence';
import { parseRetrySchedule } from './domain/retry-schedule';

export interface WebhookDispatcherConfig extends ServiceConfig {
  /** Base64 of the 32-byte AES-256-GCM key that seals webhook secrets at rest. */
  WEBHOOK_SECRET_KEY: string;
  /** Overrides the documented schedule (docs/adr/0009-webhook-delivery-and-signatures.md), e.g. `1s,2s,4s` (units ms, s, m, h, d). */
  WEBHOOK_RETRY_SCHEDULE?: string;
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: number;
  DELIVERY_POLL_INTERVAL_MS: number;
  DELIVERY_LEASE_MS: number;
  WORKER_ID: string;
  EVENT_LOG_RECONCILE_INTERVAL_MS: number;
  EVENT_LOG_PAGE_SIZE: number;
  EVENT_LOG_SETTLE_SECONDS: number;
  EVENT_LOG_READ_TIMEOUT_MS: number;
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

const schema = serviceSchema<WebhookDispatcherConfig>({
  WEBHOOK_SECRET_KEY: secretKey,
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Joi.boolean().when('APP_ENV', {
    is: 'production',
    then: Joi.boolean().default(false),
    otherwise: Joi.boolean().default(true),
  }),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(DEFAULT_WEBHOOK_TIMEOUT_MS),
  WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: Joi.number().integer().min(1).max(100).default(4),
  DELIVERY_POLL_INTERVAL_MS: Joi.number().integer().min(10).max(60_000).default(500),
  // A lease shorter than one attempt would let another replica send the same attempt while it is in flight.
  DELIVERY_LEASE_MS: Joi.number().integer().greater(Joi.ref('WEBHOOK_TIMEOUT_MS')).default(60_000),
  WORKER_ID: Joi.string().max(200).default(`${hostname()}:${process.pid}`),
  // The reconciliation with the owners' event logs (docs/adr/0040-webhook-event-log-reconciliation.md): how often a
  // pass reads each log, how many entries a read asks for, and how old an entry must be before the position moves
  // past it (a margin: the owner holds back what an open transaction could precede).
  EVENT_LOG_RECONCILE_INTERVAL_MS: Joi.number().integer().min(100).max(3_600_000).default(10_000),
  EVENT_LOG_PAGE_SIZE: Joi.number().integer().min(1).max(EVENT_LOG_PAGE_MAX).default(200),
  EVENT_LOG_SETTLE_SECONDS: Joi.number().min(0).max(3600).default(30),
  // How long one read of an owner's event log waits for its answer (a page is one indexed range of the outbox); a
  // replica whose read fails gives the log's lease up for another.
  EVENT_LOG_READ_TIMEOUT_MS: Joi.number().integer().min(10).max(60_000).default(5_000),
});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as webhookDispatcherConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const webhookDispatcherVariables = variableNames(schema);

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env): WebhookDispatcherConfig {
  return requireStopOutlasts(loadConfig(schema, env), 'WEBHOOK_TIMEOUT_MS', 'the webhook attempts in flight');
}
