import {
  DEFAULT_PAYMENT_WINDOW_SECONDS,
  Joi,
  loadConfig,
  serviceSchema,
  variableNames,
  type ServiceConfig,
} from '@gateway/config';
import type { PaymentMethod } from '@gateway/contracts';
import { parseFeeTerms, type FeeTerms } from './domain/fee';

export interface PaymentConfig extends ServiceConfig {
  /** How long a create/update waits for the PIX adapter or the Solana watcher before answering SERVICE_UNAVAILABLE. */
  RAIL_RPC_TIMEOUT_MS: number;
  PIX_EXPIRES_IN_SECONDS: number;
  /** Create reservations older than this are purged; longer than the gateway's 24 h idempotency window. */
  CREATE_RESERVATION_RETENTION_HOURS: number;
  /**
   * Finished refund intents (opened, given up) older than this are purged; longer than the gateway's 24 h idempotency
   * window, so a refund command retried under the same key always finds its intent.
   */
  REFUND_INTENT_RETENTION_HOURS: number;
  /** A payment still pending/processing this long after it was created (and again each time as long after it was last asked about) is checked with its rail. */
  RECONCILE_AFTER_SECONDS: number;
  /** Pause between reconciliation passes. */
  RECONCILE_INTERVAL_SECONDS: number;
  /**
   * A refund still pending this long after it was (last) asked of its rail is asked again, in case the request never
   * reached the rail; the rails carry a refund out once per refund id, however often asked.
   */
  REFUND_RESEND_AFTER_SECONDS: number;
  /** How long a refund waits for the ledger's answer to its reservation (less when its caller's deadline is earlier). */
  LEDGER_RPC_TIMEOUT_MS: number;
  /**
   * How long a refund asked for right after its payment was paid waits, asking the ledger again, for the ledger to post
   * the payment (asynchronous, usually within milliseconds) before answering SERVICE_UNAVAILABLE
   * (docs/refunds.md#the-balance-first).
   */
  REFUND_POSTING_WAIT_MS: number;
  /**
   * The fee rule a business gets for a method the first time it creates a payment by it without one of its own
   * (`99bps+0`: 0.99 % and no fixed part), kept as its own from then on; empty leaves it NO_FEE_RULE until the
   * operator sets one. Sandbox: 99bps+0 for both. Production: none unless set.
   */
  DEFAULT_FEE_PIX?: string;
  DEFAULT_FEE_CRYPTO?: string;
}

/** A default fee rule: `<bps>bps+<fixed centavos>`, or empty for none; checked at start. */
const defaultFee = Joi.string()
  .allow('')
  .custom((text: string, helpers) => {
    try {
      parseFeeTerms(text);
      return text;
    } catch (err) {
      return helpers.message({ custom: `{{#label}} ${(err as Error).message}` });
    }
  })
  .when('APP_ENV', {
    is: 'production',
    then: Joi.string().default(''),
    otherwise: Joi.string().default('99bps+0'),
  });

const schema = serviceSchema<PaymentConfig>({
  RAIL_RPC_TIMEOUT_MS: Joi.number().integer().min(100).default(4000),
  PIX_EXPIRES_IN_SECONDS: Joi.number().integer().min(60).default(DEFAULT_PAYMENT_WINDOW_SECONDS.pix),
  CREATE_RESERVATION_RETENTION_HOURS: Joi.number().integer().min(25).default(48),
  REFUND_INTENT_RETENTION_HOURS: Joi.number().integer().min(25).default(48),
  RECONCILE_AFTER_SECONDS: Joi.number().integer().min(1).default(120),
  RECONCILE_INTERVAL_SECONDS: Joi.number().integer().min(1).default(30),
  REFUND_RESEND_AFTER_SECONDS: Joi.number().integer().min(1).default(600),
  LEDGER_RPC_TIMEOUT_MS: Joi.number().integer().min(100).default(4000),
  REFUND_POSTING_WAIT_MS: Joi.number().integer().min(0).max(60_000).default(3000),
  DEFAULT_FEE_PIX: defaultFee,
  DEFAULT_FEE_CRYPTO: defaultFee,
});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as paymentConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const paymentVariables = variableNames(schema);

export function loadPaymentConfig(env: NodeJS.ProcessEnv = process.env): PaymentConfig {
  return loadConfig(schema, env);
}

/** The deployment's default fee rule of each method (null: none; unset in a config built by hand: none). */
export function defaultFeeRules(config: PaymentConfig): Record<PaymentMethod, FeeTerms | null> {
  return {
    pix: parseFeeTerms(config.DEFAULT_FEE_PIX ?? ''),
    crypto: parseFeeTerms(config.DEFAULT_FEE_CRYPTO ?? ''),
  };
}
