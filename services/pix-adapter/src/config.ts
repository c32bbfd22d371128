import {
  PROFILES_WITHOUT_SECRET,
  PSP_PROFILE_NAMES,
  type PspProfileName,
  profilesCallingBackOverMtls,
  profilesSending,
} from '@gateway/contracts';
import {
  Joi,
  SANDBOX_PIX_KEY,
  SANDBOX_PSP_CLIENT,
  bindHost,
  loadConfig,
  pixKey,
  pixMerchantCity,
  sandboxDefault,
  sandboxOnly,
  secret,
  serviceSchema,
  variableNames,
  type ServiceConfig,
} from '@gateway/config';
import { parseSealingKey } from '@gateway/persistence';

export { SANDBOX_PIX_KEY };

export interface PixAdapterConfig extends ServiceConfig {
  /** How the PSP differs from the API Pix baseline (docs/psp-profiles.md); `bcb` is the baseline. */
  PSP_PROFILE: PspProfileName;
  /** Banco do Brasil's developer application key (`gw-dev-app-key` on every call); required by the `bb` profile. */
  PSP_DEVELOPER_APP_KEY?: string;
  /** Inter's account number (`x-conta-corrente` on every call); required by the `inter` profile. */
  PSP_ACCOUNT_NUMBER?: string;
  PSP_BASE_URL: string;
  /** Where the PSP mounts API Pix v2 (`/v2`, `/pix/v2`...). */
  PSP_PATH_PREFIX: string;
  PSP_OAUTH_TOKEN_URL: string;
  PSP_CLIENT_ID: string;
  /** Unset only with the `sicoob` profile, whose token is issued for the client id alone (the certificate vouching). */
  PSP_CLIENT_SECRET?: string;
  /** OAuth scopes to ask for; unset: those of the operations the adapter calls; empty: none (the PSP's default). */
  PSP_OAUTH_SCOPE?: string;
  /** Pix Automático's own token's scopes; unset: `API_PIX_AUTOMATIC_SCOPES` (rec, solicrec, cobr, locrec, webhooks). */
  PSP_AUTOMATIC_PIX_OAUTH_SCOPE?: string;
  /**
   * The receiving account a Pix Automático cycle (`cobr`) names as its `recebedor`: `agencia/conta/tipoConta`
   * (`0001/1234567/CORRENTE`); unset: cycles are refused (AUTOMATIC_PIX_NOT_SUPPORTED). The sandbox's by default.
   */
  PSP_RECEIVER_ACCOUNT?: string;
  /** PEM file paths of the client certificate most PSPs require (mTLS); optional in sandbox. */
  PSP_MTLS_CERT?: string;
  PSP_MTLS_KEY?: string;
  PSP_MTLS_CA?: string;
  /** The client certificate as a PKCS#12 file (.p12/.pfx, as Efí, BB and Sicoob hand it out), instead of the PEM pair. */
  PSP_MTLS_PFX?: string;
  /** The passphrase of PSP_MTLS_PFX. */
  PSP_MTLS_PASSPHRASE?: string;
  /** Per attempt; with the retries it stays under the payment service's rail timeout. */
  PSP_TIMEOUT_MS: number;
  PSP_MAX_RETRIES: number;
  /** The receiving Pix key (chave) every charge is paid into. */
  PIX_KEY: string;
  MERCHANT_CITY: string;
  CALLBACK_HOST: string;
  /** 0 picks a free port (tests); the bound URL is then what gets registered at the PSP. */
  CALLBACK_PORT: number;
  /** Public base URL of the callback receiver as the PSP reaches it; `/webhook?token=...` is appended. Defaults to the bound address. */
  CALLBACK_PUBLIC_URL?: string;
  CALLBACK_TOKEN: string;
  /** PEM files of the callback listener's own TLS certificate: set, it serves HTTPS. */
  CALLBACK_TLS_CERT?: string;
  CALLBACK_TLS_KEY?: string;
  /** PEM file of the CA whose client certificates the callback listener requires (the PSP's, e.g. Efí's); needs TLS. */
  CALLBACK_CLIENT_CA?: string;
  CALLBACK_MTLS_AT_INGRESS: boolean;
  EXPIRY_SWEEP_INTERVAL_MS: number;
  /** While a charge is still unpaid this long after it was opened (its callback may be lost), the PSP's list of received Pix is read by period for it. */
  CALLBACK_OVERDUE_SECONDS: number;
  /** Each open charge is also read alone this long after it was opened, and again as long after (is it still known at the PSP?), with what the request budget leaves. */
  CHARGE_RECHECK_SECONDS: number;
  /** A Pix Automático recurrence pending or active, or an open cycle, unchecked this long is read at the PSP. */
  RECURRENCE_RECHECK_SECONDS: number;
  /** The most requests the overdue-callback pass makes at the PSP per minute, all replicas together: the list of received Pix first, then re-reads of charges. */
  PSP_POLL_REQUESTS_PER_MINUTE: number;
  /** Pause between passes of the overdue-callback polls (charges, devoluções and payouts). */
  CALLBACK_POLL_INTERVAL_MS: number;
  /** A devolução not settled this long after its last change is re-read at the PSP (its callback may be lost), and again each time as long after. */
  DEVOLUCAO_OVERDUE_SECONDS: number;
  /** An active charge the PSP has not known for this long (its first "not found" logged once) fails. */
  PSP_UNKNOWN_CHARGE_GRACE_SECONDS: number;
  /** The platform account's own Pix key that payouts are sent from (Efí `pagador.chave`); default PIX_KEY. */
  PAYOUT_PAYER_PIX_KEY: string;
  /** A payout the PSP holds (EM_PROCESSAMENTO) is read again this long after the last look (its callback may be lost). */
  PAYOUT_OVERDUE_SECONDS: number;
  /** After a payout attempt that did not go through, the next one waits this long, doubling each time... */
  PAYOUT_RETRY_FIRST_SECONDS: number;
  /** ...up to this long (the first wait too). */
  PAYOUT_RETRY_MAX_SECONDS: number;
  /** Base64 of the 32-byte AES-256-GCM key that seals businesses' own PSP credentials (secret, certificate) at rest. */
  PSP_ACCOUNT_SEALING_KEY: string;
}

const DEVELOPMENT_PSP_ACCOUNT_SEALING_KEY = Buffer.from('dev-only-psp-account-sealing-32b').toString(
  'base64',
);

/** Where the PSP's callbacks are taken when CALLBACK_PORT is unset (the launcher checks it free too). */
export const DEFAULT_CALLBACK_PORT = 3101;

const schema = serviceSchema<PixAdapterConfig>({
  PSP_PROFILE: Joi.string()
    .valid(...PSP_PROFILE_NAMES)
    .default('bcb'),
  // Required by the profiles that send them (BB's key, Inter's account).
  PSP_DEVELOPER_APP_KEY: Joi.string().when('PSP_PROFILE', {
    is: Joi.valid(...profilesSending('developerAppKey')),
    then: Joi.required(),
  }),
  PSP_ACCOUNT_NUMBER: Joi.string()
    .pattern(/^[0-9]{1,20}$/)
    .when('PSP_PROFILE', { is: Joi.valid(...profilesSending('accountNumber')), then: Joi.required() }),
  PSP_BASE_URL: sandboxDefault(
    Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .replace(/\/+$/, ''),
    'http://127.0.0.1:4010',
  ),
  PSP_PATH_PREFIX: Joi.string()
    .pattern(/^(\/[A-Za-z0-9._-]+)+$/)
    .default('/v2'),
  PSP_OAUTH_TOKEN_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default((parent: { PSP_BASE_URL: string }) => `${parent.PSP_BASE_URL}/oauth/token`),
  PSP_CLIENT_ID: secret(SANDBOX_PSP_CLIENT.id),
  PSP_CLIENT_SECRET: secret(SANDBOX_PSP_CLIENT.secret).when('PSP_PROFILE', {
    is: Joi.valid(...PROFILES_WITHOUT_SECRET),
    then: Joi.optional(),
  }),
  PSP_OAUTH_SCOPE: Joi.string()
    .allow('')
    .pattern(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/),
  PSP_AUTOMATIC_PIX_OAUTH_SCOPE: Joi.string().pattern(
    /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
  ),
  PSP_RECEIVER_ACCOUNT: Joi.string()
    .pattern(/^(\d{1,4})?\/[0-9A-Za-z-]{1,20}\/(CORRENTE|POUPANCA|PAGAMENTO)$/)
    .when('APP_ENV', { is: 'sandbox', then: Joi.optional().default('0001/1234567/CORRENTE') }),
  PSP_MTLS_CERT: Joi.string(),
  PSP_MTLS_KEY: Joi.string(),
  PSP_MTLS_CA: Joi.string(),
  PSP_MTLS_PFX: Joi.string(),
  PSP_MTLS_PASSPHRASE: Joi.string(),
  PSP_TIMEOUT_MS: Joi.number().integer().min(100).default(1500),
  PSP_MAX_RETRIES: Joi.number().integer().min(0).max(5).default(1),
  PIX_KEY: sandboxOnly(pixKey, SANDBOX_PIX_KEY),
  MERCHANT_CITY: sandboxDefault(pixMerchantCity, 'SAO PAULO'),
  CALLBACK_HOST: bindHost.default('127.0.0.1'),
  CALLBACK_PORT: Joi.number().port().default(DEFAULT_CALLBACK_PORT),
  // In production the PSP must reach it from outside: the bound address never is that.
  CALLBACK_PUBLIC_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .when('APP_ENV', { is: 'production', then: Joi.required() }),
  CALLBACK_TOKEN: secret('sandbox-callback-token', Joi.string().min(16)),
  CALLBACK_TLS_CERT: Joi.string(),
  CALLBACK_TLS_KEY: Joi.string(),
  // A PSP that calls back over mutual TLS (Efí) needs the listener to ask for its certificate, unless the ingress in
  // front of it does (CALLBACK_MTLS_AT_INGRESS): production never starts a listener such a PSP would refuse.
  CALLBACK_CLIENT_CA: Joi.string().when('APP_ENV', {
    is: 'production',
    then: Joi.when('PSP_PROFILE', {
      is: Joi.valid(...profilesCallingBackOverMtls()),
      then: Joi.when('CALLBACK_MTLS_AT_INGRESS', {
        is: Joi.boolean().valid(true).required(),
        otherwise: Joi.required(),
      }),
    }),
  }),
  CALLBACK_MTLS_AT_INGRESS: Joi.boolean().default(false),
  EXPIRY_SWEEP_INTERVAL_MS: Joi.number().integer().min(50).default(5000),
  CALLBACK_OVERDUE_SECONDS: Joi.number().integer().min(1).default(60),
  CHARGE_RECHECK_SECONDS: Joi.number().integer().min(1).default(300),
  RECURRENCE_RECHECK_SECONDS: Joi.number().integer().min(1).default(600),
  PSP_POLL_REQUESTS_PER_MINUTE: Joi.number().integer().min(1).default(300),
  CALLBACK_POLL_INTERVAL_MS: Joi.number().integer().min(50).default(15000),
  DEVOLUCAO_OVERDUE_SECONDS: Joi.number().integer().min(1).default(30),
  PSP_UNKNOWN_CHARGE_GRACE_SECONDS: Joi.number().integer().min(0).default(300),
  // A key of the account itself (Efí refuses any other), with a webhook: the receiving key is both, so it is the default;
  // production refuses the public sandbox key here too.
  PAYOUT_PAYER_PIX_KEY: pixKey
    .default((parent: { PIX_KEY: string }) => parent.PIX_KEY)
    .when('APP_ENV', { is: 'production', then: Joi.invalid(SANDBOX_PIX_KEY) })
    .messages({ 'any.invalid': '{{#label}} is the public sandbox value: set one of your own' }),
  PAYOUT_OVERDUE_SECONDS: Joi.number().integer().min(1).default(30),
  PAYOUT_RETRY_FIRST_SECONDS: Joi.number().integer().min(1).default(5),
  PAYOUT_RETRY_MAX_SECONDS: Joi.number().integer().min(1).default(600),
  PSP_ACCOUNT_SEALING_KEY: secret(DEVELOPMENT_PSP_ACCOUNT_SEALING_KEY).custom((value: string) => {
    parseSealingKey(value);
    return value;
  }),
})
  .and('PSP_MTLS_CERT', 'PSP_MTLS_KEY')
  .oxor('PSP_MTLS_CERT', 'PSP_MTLS_PFX')
  .with('PSP_MTLS_PASSPHRASE', 'PSP_MTLS_PFX')
  .and('CALLBACK_TLS_CERT', 'CALLBACK_TLS_KEY')
  .with('CALLBACK_CLIENT_CA', 'CALLBACK_TLS_CERT');

/** The schema itself, from which docs/configuration.md is generated (scripts/config-reference.ts). */
export { schema as pixAdapterConfigSchema };

/** The variables this service reads (the launcher hands it these and no others). */
export const pixAdapterVariables = variableNames(schema);

export function loadPixAdapterConfig(env: NodeJS.ProcessEnv = process.env): PixAdapterConfig {
  return loadConfig(schema, env);
}
