import { Joi, commonEnv, loadConfig, variableNames } from '@gateway/config';

export interface CheckoutConfig {
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
  /** How long a session start waits for the payment service to create the payment. */
  PAYMENT_RPC_TIMEOUT_MS: number;
}

const schema = Joi.object<CheckoutConfig>({
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
  PAYMENT_RPC_TIMEOUT_MS: Joi.number().integer().min(100).max(60_000).default(4000),
});

/** The variables this service reads (the launcher hands it these and no others). */
export const checkoutVariables = variableNames(schema);

export function loadCheckoutConfig(env: NodeJS.ProcessEnv = process.env): CheckoutConfig {
  return loadConfig(schema, env);
}
