import Joi from 'joi';

export { Joi };

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
    const details = error.details.map((d) => d.message).join('; ');
    throw new ConfigError(variables, details);
  }
  return value;
}

/** Env vars common to every service. Secrets get defaults only outside production (see `secret`). */
export const commonEnv = {
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  APP_ENV: Joi.string().valid('sandbox', 'production').default('sandbox'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .default('postgres://postgres@127.0.0.1:5432/gateway'),
  AMQP_URL: Joi.string()
    .uri({ scheme: ['amqp', 'amqps'] })
    .default('amqp://guest:guest@127.0.0.1:5672'),
  AMQP_PREFIX: Joi.string().allow('').default(''),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: Joi.string().allow('').default(''),
  METRICS_PORT: Joi.number().port().optional(),
};

/** A secret: required in production (no default), with a development default elsewhere. */
export function secret(developmentDefault: string): Joi.StringSchema {
  return Joi.string().when('APP_ENV', {
    is: 'production',
    then: Joi.required(),
    otherwise: Joi.optional().default(developmentDefault),
  });
}

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
