import { PSP_PROFILE_NAMES, type PspProfileName, profilesSending } from '@gateway/contracts';
import {
  Joi,
  SANDBOX_PIX_KEY,
  SANDBOX_PSP_CLIENT,
  bindHost,
  commonEnv,
  loadConfig,
  pixKey,
  variableNames,
  pixMerchantCity,
  pixMerchantName,
} from '@gateway/config';

export { SANDBOX_PIX_KEY };

/**
 * The simulator stands in for a bank next to the gateway's own processes, so every variable of its own is prefixed
 * `PSP_SIMULATOR_`: a `PORT` or `CLIENT_ID` meant for another process never reaches it.
 */
export interface PspSimulatorConfig {
  LOG_LEVEL: string;
  PSP_SIMULATOR_HOST: string;
  PSP_SIMULATOR_PORT: number;
  /** Where it keeps its books (its own schema, `psp_simulator`): the launcher gives it the stack's database. */
  PSP_SIMULATOR_DATABASE_URL: string;
  PSP_SIMULATOR_PATH_PREFIX: string;
  PSP_SIMULATOR_CLIENT_ID: string;
  PSP_SIMULATOR_CLIENT_SECRET: string;
  PSP_SIMULATOR_PIX_KEY: string;
  PSP_SIMULATOR_MERCHANT_NAME: string;
  PSP_SIMULATOR_MERCHANT_CITY: string;
  /** The first wait before a sent Pix's callback is tried again; ten tries, each wait doubling. */
  PSP_SIMULATOR_ENVIO_CALLBACK_FIRST_RETRY_MS: number;
  /** The bank it behaves like (docs/psp-profiles.md). */
  PSP_SIMULATOR_PROFILE: PspProfileName;
  /** The developer application key it requires in the `bb` profile. */
  PSP_SIMULATOR_DEVELOPER_APP_KEY?: string;
  /** The account number it requires in the `inter` profile. */
  PSP_SIMULATOR_ACCOUNT_NUMBER?: string;
}

/** Its variables' rules; the launcher checks the port it hands the simulator by the same rule. */
export const pspSimulatorSchema = Joi.object<PspSimulatorConfig>({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  PSP_SIMULATOR_HOST: bindHost.default('127.0.0.1'),
  PSP_SIMULATOR_PORT: Joi.number().port().default(4010),
  PSP_SIMULATOR_DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .default('postgres://postgres@127.0.0.1:5432/gateway'),
  PSP_SIMULATOR_PATH_PREFIX: Joi.string()
    .pattern(/^(\/[A-Za-z0-9._-]+)+$/)
    .default('/v2'),
  PSP_SIMULATOR_CLIENT_ID: Joi.string().default(SANDBOX_PSP_CLIENT.id),
  PSP_SIMULATOR_CLIENT_SECRET: Joi.string().default(SANDBOX_PSP_CLIENT.secret),
  // An EVP (random) key, like the ones DICT hands out.
  PSP_SIMULATOR_PIX_KEY: pixKey.default(SANDBOX_PIX_KEY),
  PSP_SIMULATOR_MERCHANT_NAME: pixMerchantName.default('PSP SIMULADOR'),
  PSP_SIMULATOR_MERCHANT_CITY: pixMerchantCity.default('SAO PAULO'),
  PSP_SIMULATOR_ENVIO_CALLBACK_FIRST_RETRY_MS: Joi.number().integer().min(1).max(3_600_000).default(1000),
  PSP_SIMULATOR_PROFILE: Joi.string()
    .valid(...PSP_PROFILE_NAMES)
    .default('bcb'),
  PSP_SIMULATOR_DEVELOPER_APP_KEY: Joi.string().when('PSP_SIMULATOR_PROFILE', {
    is: Joi.valid(...profilesSending('developerAppKey')),
    then: Joi.required(),
  }),
  PSP_SIMULATOR_ACCOUNT_NUMBER: Joi.string()
    .pattern(/^[0-9]{1,20}$/)
    .when('PSP_SIMULATOR_PROFILE', {
      is: Joi.valid(...profilesSending('accountNumber')),
      then: Joi.required(),
    }),
});

/** The variables the simulator reads (the launcher hands it these and no others). */
export const pspSimulatorVariables = variableNames(pspSimulatorSchema);

export function loadPspSimulatorConfig(env: NodeJS.ProcessEnv = process.env): PspSimulatorConfig {
  return loadConfig(pspSimulatorSchema, env);
}
