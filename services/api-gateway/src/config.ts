import {
  DEVELOPMENT_ADMIN_TOKEN,
  Joi,
  commonEnv,
  loadConfig,
  requireStopOutlasts,
  sandboxDefault,
  secret,
  serviceSchema,
  variableNames,
  type ServiceEnv,
} from '@gateway/config';
import { parseSealingKey } from '@gateway/persistence';

/**
 * 32 characters: a random token of that length carries at least 128 bits (hex) or 192 bits (base64), beyond any
 * online guessing. It applies in every environment (a hosted sandbox has an operator API too).
 */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
export { DEVELOPMENT_ADMIN_TOKEN };

export interface ApiGatewayConfig extends ServiceEnv {
  PORT: number;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  ADMIN_TOKEN: string;
  RPC_TIMEOUT_MS: number;
  RATE_LIMIT_PER_MINUTE: number;
  /**
   * Per key the operator API marked as the merchant dashboard's (one per business, shared by everyone using the
   * dashboard), instead of RATE_LIMIT_PER_MINUTE.
   */
  DASHBOARD_RATE_LIMIT_PER_MINUTE: number;
  /** Per buyer IP on the hosted checkout pages (`/c/...`), which carry no API key. */
  CHECKOUT_RATE_LIMIT_PER_MINUTE: number;
  /** Per caller IP on the operator API (`/admin/v1`), counted before the token is checked. */
  ADMIN_RATE_LIMIT_PER_MINUTE: number;
  /** Base64 of the 32-byte AES-256-GCM key that seals stored idempotent answers (they may carry secrets). */
  IDEMPOTENCY_RESPONSE_KEY: string;
  /** How often expired idempotency records are deleted. */
  IDEMPOTENCY_PURGE_INTERVAL_MS: number;
  PUBLIC_BASE_URL: string;
  /**
   * A payment copy known true longer ago than this (stored, or proved complete by the change feed since) is read again
   * from the payment service before it is answered, and lists go to the payment service once the change feed was last
   * read to its end longer ago than this: the bound on staleness when events and the feed are both lost (while events
   * flow, a copy trails by their lag; while the feed is read, by its interval).
   */
  PAYMENT_COPY_MAX_AGE_MS: number;
  /**
   * How often each replica reads the payment service's change feed into its payment copies: how stale a payment list
   * from the copies can be while the events are lost (docs/adr/0043-payment-lists-from-the-change-feed.md).
   */
  PAYMENT_COPY_CATCH_UP_INTERVAL_MS: number;
  /** Express `trust proxy`: `false` (default), `true`, a hop count, or a list of addresses/subnets. */
  TRUST_PROXY: boolean | number | string;
}

const DEVELOPMENT_IDEMPOTENCY_RESPONSE_KEY = Buffer.from('dev-only-idempotency-answers-key').toString(
  'base64',
);

const trustProxy = Joi.alternatives()
  .try(Joi.boolean(), Joi.number().integer().min(0), Joi.string().min(1))
  .default(false);

/** Its variables' rules; the launcher checks the ones it shares (PORT, ADMIN_TOKEN) by these very rules. */
export const apiGatewaySchema = serviceSchema<ApiGatewayConfig>(
  {
    PORT: Joi.number().port().default(3000),
    REDIS_URL: commonEnv.REDIS_URL,
    REDIS_PREFIX: commonEnv.REDIS_PREFIX,
    ADMIN_TOKEN: secret(DEVELOPMENT_ADMIN_TOKEN, Joi.string().min(ADMIN_TOKEN_MIN_LENGTH)),
    RPC_TIMEOUT_MS: Joi.number().integer().min(50).default(5000),
    RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
    DASHBOARD_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(600),
    CHECKOUT_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(120),
    ADMIN_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(30),
    IDEMPOTENCY_RESPONSE_KEY: secret(DEVELOPMENT_IDEMPOTENCY_RESPONSE_KEY).custom((value: string) => {
      parseSealingKey(value);
      return value;
    }),
    IDEMPOTENCY_PURGE_INTERVAL_MS: Joi.number().integer().min(100).default(60_000),
    PUBLIC_BASE_URL: sandboxDefault(
      Joi.string().uri({ scheme: ['http', 'https'] }),
      (parent: { PORT: number }) => `http://localhost:${parent.PORT}`,
    ),
    TRUST_PROXY: trustProxy,
    PAYMENT_COPY_MAX_AGE_MS: Joi.number().integer().min(0).max(3_600_000).default(30_000),
    PAYMENT_COPY_CATCH_UP_INTERVAL_MS: Joi.number().integer().min(50).max(600_000).default(1000),
  },
  // It serves /metrics on its API port.
  { metricsListener: false },
);

/** The variables this service reads (the launcher hands it these and no others). */
export const apiGatewayVariables = variableNames(apiGatewaySchema);

export function loadApiGatewayConfig(env: NodeJS.ProcessEnv = process.env): ApiGatewayConfig {
  return requireStopOutlasts(loadConfig(apiGatewaySchema, env), 'RPC_TIMEOUT_MS', 'the requests in flight');
}
