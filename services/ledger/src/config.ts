import { Joi, loadConfig, serviceSchema, variableNames, type ServiceConfig } from '@gateway/config';

export interface LedgerConfig extends ServiceConfig {
  /**
   * How long after a PIX payment is paid its net amount stays `pending` before it becomes `available`
   * (docs/money-model.md#settlement). Sandbox: 0 (available at the next sweep). Production: one day (D+1).
   */
  SETTLEMENT_DELAY_PIX_SECONDS: number;
  /** The same for a crypto payment. Sandbox: 0. Production: one day. */
  SETTLEMENT_DELAY_CRYPTO_SECONDS: number;
  /** Pause between two sweeps for payments whose settlement is due (a sweep also runs at start). */
  SETTLEMENT_SWEEP_INTERVAL_MS: number;
  /**
   * How long a refund's reservation may wait for its refund to be confirmed (its outcome, or the payment service saying
   * it exists) before the payment service is asked about it; a refund that was never opened has its reservation
   * released then (docs/money-model.md#refunds). Default 600 (10 minutes).
   */
  RESERVATION_CONFIRM_AFTER_SECONDS: number;
  /** Pause between two passes of the sweep for unconfirmed reservations. */
  RESERVATION_SWEEP_INTERVAL_MS: number;
}

const ONE_DAY_SECONDS = 86_400;

/** A settlement delay in seconds: 0 in the sandbox, a day in production, unless set. */
const settlementDelay = Joi.number()
  .integer()
  .min(0)
  .max(90 * ONE_DAY_SECONDS)
  .when('APP_ENV', {
    is: 'production',
    then: Joi.number().default(ONE_DAY_SECONDS),
    otherwise: Joi.number().default(0),
  });

const schema = serviceSchema<LedgerConfig>({
  SETTLEMENT_DELAY_PIX_SECONDS: settlementDelay,
  SETTLEMENT_DELAY_CRYPTO_SECONDS: settlementDelay,
  SETTLEMENT_SWEEP_INTERVAL_MS: Joi.number().integer().min(50).max(3_600_000).default(5000),
  RESERVATION_CONFIRM_AFTER_SECONDS: Joi.number()
    .integer()
    .min(1)
    .max(7 * ONE_DAY_SECONDS)
    .default(600),
  RESERVATION_SWEEP_INTERVAL_MS: Joi.number().integer().min(50).max(3_600_000).default(60_000),
});

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as ledgerConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const ledgerVariables = variableNames(schema);

export function loadLedgerConfig(env: NodeJS.ProcessEnv = process.env): LedgerConfig {
  return loadConfig(schema, env);
}
