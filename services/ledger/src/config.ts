import {
  commonEnv,
  ConfigError,
  Joi,
  loadConfig,
  serviceSchema,
  variableNames,
  type ServiceConfig,
} from '@gateway/config';

export interface LedgerConfig extends ServiceConfig {
  /**
   * The owner of the ledger's tables, which runs its migrations (docs/operating.md#the-ledgers-database-roles); the
   * service serves through DATABASE_URL, a role that may neither change nor remove what the books hold. Unset in the
   * sandbox: DATABASE_URL is the local administrator, which migrates and sets up the role the service serves as
   * (`ledger_runtime`). Unset in production: the service does not migrate (the `migrate` command, which then requires
   * it, ran before) and refuses a schema not migrated.
   */
  MIGRATION_DATABASE_URL?: string;
  /**
   * How long after a PIX payment is paid its net amount stays `pending` before it becomes `available`
   * (docs/money-model.md#settlement). Sandbox: 0 (available at the next sweep). Production: one day (D+1).
   */
  SETTLEMENT_DELAY_PIX: number;
  /** The same for a crypto payment. Sandbox: 0. Production: one day. */
  SETTLEMENT_DELAY_CRYPTO: number;
  /** Pause between two sweeps for payments whose settlement is due (a sweep also runs at start). */
  SETTLEMENT_SWEEP_INTERVAL_MS: number;
  /**
   * How often the scheduled reconciliation of the books with the rails runs (docs/operating.md#reconciliation-of-the-books): once
   * per interval across all replicas (each interval's slot is claimed in the database). 0: never on a schedule (runs
   * on demand only).
   */
  RECONCILIATION_INTERVAL_SECONDS: number;
  /** How far back a run looks (its period ends at the run); a little over the interval, so periods overlap. */
  RECONCILIATION_PERIOD_SECONDS: number;
  /**
   * Money in flight: a rail movement younger than this that the books have not posted yet is reported as pending,
   * not as a difference.
   */
  RECONCILIATION_GRACE_SECONDS: number;
  /**
   * How often each replica reads the newest completed reconciliation run again for its gauges
   * (`ledger_reconciliation_differences`), so every replica reports the newest run, whichever ran it.
   */
  RECONCILIATION_METRICS_REFRESH_MS: number;
  /** How long a run waits for each rail's owner (the PIX adapter, the Solana watcher) before it is recorded failed. */
  RECONCILIATION_RAIL_TIMEOUT_MS: number;
  /**
   * What the PSP account held before the books began, in centavos: 0 for an account opened for the gateway (the
   * sandbox PSP's opens empty); otherwise its balance on the day the ledger started.
   */
  RECONCILIATION_PSP_OPENING_BALANCE_CENTAVOS: number;
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

/**
 * The ledger posts the paid payments in flight together (one statement a batch), so its batches are as large as its
 * prefetch lets them be: 64 drained a backlog 1.5 to 1.7 times as fast as the shared default of 16, at about three
 * quarters of the CPU per posting (docs/benchmarks.md#the-ledgers-postings-pnpm-benchledger).
 */
export const LEDGER_BROKER_PREFETCH = 64;

const schema = serviceSchema<LedgerConfig>({
  MIGRATION_DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .optional(),
  BROKER_PREFETCH: commonEnv.BROKER_PREFETCH.default(LEDGER_BROKER_PREFETCH),
  SETTLEMENT_DELAY_PIX: settlementDelay,
  SETTLEMENT_DELAY_CRYPTO: settlementDelay,
  SETTLEMENT_SWEEP_INTERVAL_MS: Joi.number().integer().min(50).max(3_600_000).default(5000),
  RECONCILIATION_INTERVAL_SECONDS: Joi.number()
    .integer()
    .min(0)
    .max(31 * ONE_DAY_SECONDS)
    .custom((value: number) => {
      if (value !== 0 && value < 60) throw new Error('is 0 (never) or at least 60');
      return value;
    })
    .default(ONE_DAY_SECONDS),
  RECONCILIATION_PERIOD_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(31 * ONE_DAY_SECONDS)
    .default(ONE_DAY_SECONDS + 3600),
  RECONCILIATION_GRACE_SECONDS: Joi.number().integer().min(0).max(ONE_DAY_SECONDS).default(900),
  RECONCILIATION_RAIL_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(4000),
  RECONCILIATION_METRICS_REFRESH_MS: Joi.number().integer().min(50).max(3_600_000).default(30_000),
  RECONCILIATION_PSP_OPENING_BALANCE_CENTAVOS: Joi.number()
    .integer()
    .min(-Number.MAX_SAFE_INTEGER)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0),
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

/**
 * The config of the `migrate` command: the same, but production requires MIGRATION_DATABASE_URL (the serving role
 * cannot migrate; outside production DATABASE_URL, the local administrator, migrates when it is unset).
 */
export function loadLedgerMigrationConfig(env: NodeJS.ProcessEnv = process.env): LedgerConfig {
  const config = loadLedgerConfig(env);
  if (config.APP_ENV === 'production' && config.MIGRATION_DATABASE_URL === undefined)
    throw new ConfigError(
      ['MIGRATION_DATABASE_URL'],
      '"MIGRATION_DATABASE_URL" is required to migrate in production (the owner of the ledger\'s tables)',
    );
  return config;
}
