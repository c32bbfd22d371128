import { Joi, loadConfig } from '@gateway/config';

/** The sandbox receiving account's EVP key; the PIX adapter's PIX_KEY defaults to the same one. */
export const SANDBOX_PIX_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

export interface PspSimulatorConfig {
  LOG_LEVEL: string;
  HOST: string;
  PORT: number;
  PATH_PREFIX: string;
  CLIENT_ID: string;
  CLIENT_SECRET: string;
  PIX_KEY: string;
  MERCHANT_NAME: string;
  MERCHANT_CITY: string;
}

const schema = Joi.object<PspSimulatorConfig>({
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  HOST: Joi.string().default('127.0.0.1'),
  PORT: Joi.number().port().default(4010),
  PATH_PREFIX: Joi.string()
    .pattern(/^(\/[A-Za-z0-9._-]+)+$/)
    .default('/v2'),
  CLIENT_ID: Joi.string().default('sandbox-client'),
  CLIENT_SECRET: Joi.string().default('sandbox-secret'),
  // An EVP (random) key, like the ones DICT hands out.
  PIX_KEY: Joi.string().max(77).default(SANDBOX_PIX_KEY),
  MERCHANT_NAME: Joi.string()
    .pattern(/^[\x20-\x7e]{1,25}$/)
    .default('PSP SIMULADOR'),
  MERCHANT_CITY: Joi.string()
    .pattern(/^[\x20-\x7e]{1,15}$/)
    .default('SAO PAULO'),
});

export function loadPspSimulatorConfig(env: NodeJS.ProcessEnv = process.env): PspSimulatorConfig {
  return loadConfig(schema, env);
}
