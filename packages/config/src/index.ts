import Joi from 'joi';
import { telemetryEnv, type TelemetryConfig } from './telemetry';

export { Joi };
export * from './telemetry';
export * from './node-flags';

export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    details: string,
  ) {
    super(`invalid configuration: ${details}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates an environment against a joi schema once, at start. Unknown variables are ignored; every bad variable
 * is reported together, by name, so an operator fixes them in one go.
 */
export function loadConfig<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv): T {
  const { value, error } = schema.validate(env, {
    abortEarly: false,
    allowUnknown: true,
    stripUnknown: true,
    convert: true,
  });
  if (error) {
    const variables = [...new Set(error.details.map((d) => String(d.path[0])))];
    const details = error.details.map((d) => withoutValue(d.message, d.context?.value)).join('; ');
    throw new ConfigError(variables, details);
  }
  return value;
}

/**
 * A variable's message without the value it was given: a bad value may be a secret (a key, a password in a URL), and
 * these messages go to logs and terminals.
 */
function withoutValue(message: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') return message;
  return message.split(value).join('[value hidden]');
}

/** The variables a config schema reads (what a launcher hands that process, and nothing else). */
export function variableNames(schema: Joi.ObjectSchema): string[] {
  return Object.keys((schema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
}

/**
 * Required in production; outside it, `developmentDefault` when unset. A local default (a URL on 127.0.0.1, a
 * sandbox key) must never be what a production process silently runs with.
 */
export function sandboxDefault<S extends Joi.Schema>(
  schema: S,
  developmentDefault: Parameters<Joi.AnySchema['default']>[0],
): S {
  return schema.when('APP_ENV', {
    is: 'production',
    then: Joi.required(),
    otherwise: Joi.optional().default(developmentDefault),
  }) as S;
}

/**
 * A value whose sandbox default is public (it is in this repository: a development secret, the simulator's Pix key,
 * a wallet derived from a published seed): required in production, which refuses the sandbox value even when it is
 * set explicitly.
 */
export function sandboxOnly<S extends Joi.Schema>(schema: S, sandboxValue: string): S {
  return sandboxDefault(schema, sandboxValue)
    .when('APP_ENV', { is: 'production', then: Joi.invalid(sandboxValue) })
    .messages({ 'any.invalid': '{{#label}} is the public sandbox value: set one of your own' }) as S;
}

/** A secret: required in production, with a development default elsewhere that production refuses. */
export function secret(
  developmentDefault: string,
  schema: Joi.StringSchema = Joi.string(),
): Joi.StringSchema {
  return sandboxOnly(schema, developmentDefault);
}

/**
 * The operator token a sandbox gateway accepts when ADMIN_TOKEN is unset (production refuses it), and the one the CLI
 * sends to a gateway on this machine: public, so one home for both.
 */
export const DEVELOPMENT_ADMIN_TOKEN = 'dev-admin-token-for-the-local-stack';

/** An interface to bind: a host name or an IP address (`0.0.0.0` for every interface). */
export const bindHost = Joi.string().hostname();

/**
 * How long a service's stop may take before what still runs is abandoned to redelivery: room for the slowest work in
 * flight (an RPC waiting on a rail, a webhook attempt) plus the outbox's last publish. Orchestrators' grace periods
 * (Kubernetes terminationGracePeriodSeconds, compose stop_grace_period) must exceed it.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;
/** Each service process's database connections at most, unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_DATABASE_POOL_SIZE = 10;

/**
 * Refuses a stop bound (SHUTDOWN_TIMEOUT_MS, its default included) that is not longer than `waitVariable`, the longest
 * each piece of `work` the stop lets finish may wait (the gateway's RPC_TIMEOUT_MS, the dispatcher's
 * WEBHOOK_TIMEOUT_MS): every such stop would run out of time. Run on a loaded config (joi checks no default against a
 * sibling).
 */
export function requireStopOutlasts<T extends { SHUTDOWN_TIMEOUT_MS?: number }>(
  config: T,
  waitVariable: keyof T & string,
  work: string,
): T {
  const bound = config.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const wait = Number(config[waitVariable]);
  if (bound <= wait)
    throw new ConfigError(
      ['SHUTDOWN_TIMEOUT_MS'],
      `"SHUTDOWN_TIMEOUT_MS" (${bound}) must exceed ${waitVariable} (${wait}): a stop waits for ${work} (each up to ${waitVariable})`,
    );
  return config;
}

const amqpUrl = Joi.string().uri({ scheme: ['amqp', 'amqps'] });

/**
 * The broker's addresses, comma-separated (a cluster's nodes): loaded as a list of URLs, each an amqp:// or amqps://
 * URL, none twice. AMQP_URL is the one-address form; `brokerUrls` reads whichever is set.
 */
const amqpUrlList = Joi.any()
  .custom((value: unknown, helpers) => {
    if (typeof value !== 'string') return helpers.error('amqpUrls.list');
    const urls = value
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== '');
    if (urls.length === 0 || new Set(urls).size !== urls.length) return helpers.error('amqpUrls.list');
    if (urls.some((url) => amqpUrl.validate(url).error !== undefined)) return helpers.error('amqpUrls.list');
    return urls;
  })
  .messages({
    'amqpUrls.list':
      '{{#label}} must list the broker nodes as amqp:// or amqps:// URLs, comma-separated, none twice',
  })
  .optional();

/**
 * The broker addresses a loaded config names: AMQP_URLS, or AMQP_URL as a list of one. A connection starts at one of
 * them and moves to another when its node goes away.
 */
export function brokerUrls(config: { AMQP_URL?: string; AMQP_URLS?: readonly string[] }): string[] {
  if (config.AMQP_URLS && config.AMQP_URLS.length > 0) return [...config.AMQP_URLS];
  if (config.AMQP_URL) return [config.AMQP_URL];
  throw new ConfigError(['AMQP_URL'], 'neither "AMQP_URL" nor "AMQP_URLS" is set');
}

/** Env vars common to every service. `APP_ENV` defaults to production: a forgotten variable never opens the sandbox. */
export const commonEnv = {
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  APP_ENV: Joi.string().valid('sandbox', 'production').default('production'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  DATABASE_URL: sandboxDefault(
    Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
    'postgres://postgres@127.0.0.1:5432/gateway',
  ),
  AMQP_URL: amqpUrl.when('AMQP_URLS', {
    is: Joi.exist(),
    then: Joi.forbidden().messages({ 'any.unknown': '{{#label}} and "AMQP_URLS" are both set: keep one' }),
    otherwise: sandboxDefault(Joi.any(), 'amqp://guest:guest@127.0.0.1:5672'),
  }),
  AMQP_URLS: amqpUrlList,
  AMQP_PREFIX: Joi.string().allow('').default(''),
  REDIS_URL: sandboxDefault(Joi.string().uri({ scheme: ['redis', 'rediss'] }), 'redis://127.0.0.1:6379'),
  REDIS_PREFIX: Joi.string().allow('').default(''),
  METRICS_PORT: Joi.number().port().optional(),
  // Metrics reveal traffic and business volumes: loopback unless the operator opens them to a scraper.
  METRICS_HOST: bindHost.default('127.0.0.1'),
  // How long a message failing transiently is retried before it is parked; unset: messaging's default (one hour).
  BROKER_RETRY_MAX_MS: Joi.number().integer().min(1000).optional(),
  // Measured with the stack bench (docs/benchmarks.md#consumer-prefetch-and-database-pool-sizes): more of either only
  // queues work on 2 cores.
  BROKER_PREFETCH: Joi.number().integer().min(1).max(1000).default(16),
  DATABASE_POOL_SIZE: Joi.number().integer().min(1).max(200).default(DEFAULT_DATABASE_POOL_SIZE),
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(1000).max(600_000).default(DEFAULT_SHUTDOWN_TIMEOUT_MS),
};

/**
 * The variables every service reads, with their rules: each service's config schema starts with this block
 * (`serviceSchema(its own)`), and the launcher hands each process exactly what its schema lists.
 */
export const serviceEnv = {
  APP_ENV: commonEnv.APP_ENV,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  DATABASE_URL: commonEnv.DATABASE_URL,
  AMQP_URL: commonEnv.AMQP_URL,
  AMQP_URLS: commonEnv.AMQP_URLS,
  AMQP_PREFIX: commonEnv.AMQP_PREFIX,
  BROKER_RETRY_MAX_MS: commonEnv.BROKER_RETRY_MAX_MS,
  BROKER_PREFETCH: commonEnv.BROKER_PREFETCH,
  DATABASE_POOL_SIZE: commonEnv.DATABASE_POOL_SIZE,
  SHUTDOWN_TIMEOUT_MS: commonEnv.SHUTDOWN_TIMEOUT_MS,
  ...telemetryEnv,
};

/** What `serviceEnv` loads. A setting with a default may be left out of a config built by hand (in tests). */
export interface ServiceEnv extends Partial<TelemetryConfig> {
  APP_ENV: 'sandbox' | 'production';
  LOG_LEVEL: string;
  DATABASE_URL: string;
  /** The broker, one address (unset when AMQP_URLS lists several: read both through `brokerUrls`). */
  AMQP_URL?: string;
  /** The broker's nodes (a cluster), as AMQP_URLS lists them. */
  AMQP_URLS?: string[];
  AMQP_PREFIX: string;
  /** How long a message failing transiently is retried before it is parked (default: one hour). */
  BROKER_RETRY_MAX_MS?: number;
  /** Unacked messages each consumer takes at once (default 16). */
  BROKER_PREFETCH?: number;
  /** PostgreSQL connections this process keeps at most (default 10). */
  DATABASE_POOL_SIZE?: number;
  /** How long a stop may take before what still runs is abandoned to redelivery (default DEFAULT_SHUTDOWN_TIMEOUT_MS). */
  SHUTDOWN_TIMEOUT_MS?: number;
}

/** The metrics listener of every service but the gateway, which serves /metrics on its API port. */
export const metricsEnv = {
  METRICS_PORT: commonEnv.METRICS_PORT,
  METRICS_HOST: commonEnv.METRICS_HOST,
};

export interface MetricsEnv {
  /** When set, `/metrics` (Prometheus) and `/healthz` are served on this port. */
  METRICS_PORT?: number;
  /** The interface the metrics listener binds (loopback by default). */
  METRICS_HOST: string;
}

/** What the config of every service but the gateway loads: the block every service reads and the metrics listener. */
export type ServiceConfig = ServiceEnv & MetricsEnv;

/**
 * A service's config schema, where the block every service reads is added: `serviceEnv`, then `metricsEnv` unless the
 * service serves /metrics on a port it already has (the gateway, on its API port), then `own`, the service's own
 * variables. Errors and the launcher name variables in this order.
 */
export function serviceSchema<T extends ServiceEnv>(
  own: Joi.PartialSchemaMap<T>,
  { metricsListener = true }: { metricsListener?: boolean } = {},
): Joi.ObjectSchema<T> {
  return Joi.object<T>({ ...serviceEnv, ...(metricsListener ? metricsEnv : {}), ...own });
}

/**
 * How long a payment may be paid unless configured otherwise (docs/api.md#payments-and-their-statuses): a PIX an hour (the payment service's
 * PIX_EXPIRES_IN_SECONDS), a crypto payment 30 minutes (the Solana watcher's PAYMENT_WINDOW_SECONDS).
 */
export const DEFAULT_PAYMENT_WINDOW_SECONDS = { pix: 3600, crypto: 1800 } as const;

/**
 * How long one webhook attempt may take unless WEBHOOK_TIMEOUT_MS says otherwise: the dispatcher's bound, and what
 * the gateway's test-webhook route waits for the attempt it asks for.
 */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * The launcher's variable for the metrics port of a service it runs, `pix-adapter` -> `PIX_ADAPTER_METRICS_PORT`: the
 * services of one machine cannot share one METRICS_PORT.
 */
export const launcherMetricsPortVariable = (service: string): `${string}_METRICS_PORT` =>
  `${service.toUpperCase().replace(/-/g, '_')}_METRICS_PORT`;

/*
 * Rules for values two processes must agree on (the PIX adapter and the PSP simulator, the Solana watcher and the
 * local chain): one definition, so a value one accepts is never one the other refuses.
 */

/** The sandbox PSP's OAuth client: the PSP simulator accepts it, the PIX adapter presents it, unless configured. */
export const SANDBOX_PSP_CLIENT = { id: 'sandbox-client', secret: 'sandbox-secret' } as const;

/** The EVP key of the sandbox receiving account: the PIX adapter's PIX_KEY and the PSP simulator's by default. */
export const SANDBOX_PIX_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

/**
 * The funded test wallet that pays simulated crypto payments, Keypair.fromSeed(sha256('brazil-payment-gateway sandbox
 * payer')), public key GAcYSxENGALfvVAXxsHAq33qSZHWv9VFDavkmXNG3Uf3: the local chain funds it and the Solana watcher
 * pays with it by default. It holds nothing outside a local chain.
 */
export const SANDBOX_PAYER_SECRET_KEY =
  '36PQcdQQ5CPv7Abt3hDp6QdgaSEuPSv5SZeCxE4eis1X9Vr66eqhGjsChLQQCewUEiHhaSLAbNeTFJ2MyX9Xheim';

/**
 * A BR Code text field (merchant name, city): printable ASCII, as the EMV QR code carries it. Accents are dropped
 * first, so `São Paulo` is read as `Sao Paulo`.
 */
export function brCodeText(maxLength: number): Joi.StringSchema {
  return Joi.string()
    .custom((value: string) => value.normalize('NFD').replace(/[\u0300-\u036f]/g, ''))
    .pattern(new RegExp(`^[\\x20-\\x7e]{1,${maxLength}}$`))
    .messages({
      'string.pattern.base': `{{#label}} must be 1 to ${maxLength} letters, digits or spaces (accents allowed)`,
    });
}

export const pixMerchantCity = brCodeText(15);
export const pixMerchantName = brCodeText(25);
/** A Pix key (chave): at most 77 characters, the longest a BR Code's merchant account field leaves room for. */
export const pixKey = Joi.string().max(77);
export const solanaPublicKey = Joi.string().pattern(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'base58 public key');
export const solanaSecretKey = Joi.string().pattern(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/, 'base58 secret key');

/** Runs a service's start function, printing a clear message and exiting non-zero on bad config. */
export function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n(bad variables: ${err.variables.join(', ')})\n`);
    process.exit(78);
  }
  throw err;
}

/** Loads a service's config, or exits with the bad variables named. */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    return exitOnConfigError(err);
  }
}
