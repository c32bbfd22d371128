import {
  DEFAULT_PAYMENT_WINDOW_SECONDS,
  Joi,
  loadConfig,
  serviceSchema,
  variableNames,
  type ServiceConfig,
} from '@gateway/config';

export interface PaymentConfig extends ServiceConfig {
  /** How long a create/update waits for the PIX adapter or the Solana watcher before answering SERVICE_UNAVAILABLE. */
  RAIL_RPC_TIMEOUT_MS: number;
  PIX_EXPIRES_IN_SECONDS: number;
  /** Create reservations older than this are purged; longer than the gateway's 24 h idempotency window. */
  CREATE_RESERVATION_RETENTION_HOURS: number;
  /** A payment still pending/processing this long after it was created (and again each time as long after it was last asked about) is checked with its rail. */
  RECONCILE_AFTER_SECONDS: number;
  /** Pause between reconciliation passes. */
  RECONCILE_INTERVAL_SECONDS: number;
  /**
   * A refund still pending this long after it was (last) asked of its rail is asked again, in case the request never
   * reached the rail; the rails carry a refund out once per refund id, however often asked.
   */
  REFUND_RESEND_AFTER_SECONDS: number;
}

const schema = serviceSchema<PaymentConfig>({
  RAIL_RPC_TIMEOUT_MS: Joi.number().integer().min(100).default(4000),
  PIX_EXPIRES_IN_SECONDS: Joi.number().integer().min(60).default(DEFAULT_PAYMENT_WINDOW_SECONDS.pix),
  CREATE_RESERVATION_RETENTION_HOURS: Joi.number().integer().min(25).default(48),
  RECONCILE_AFTER_SECONDS: Joi.number().integer().min(1).default(120),
  RECONCILE_INTERVAL_SECONDS: Joi.number().integer().min(1).default(30),
  REFUND_RESEND_AFTER_SECONDS: Joi.number().integer().min(1).default(600),
});

/** The variables this service reads (the launcher hands it these and no others). */
export const paymentVariables = variableNames(schema);

export function loadPaymentConfig(env: NodeJS.ProcessEnv = process.env): PaymentConfig {
  return loadConfig(schema, env);
}
