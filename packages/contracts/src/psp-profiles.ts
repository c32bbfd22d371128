/**
 * How a receiving PSP's API Pix differs from the Central Bank's baseline, declared once for the PIX adapter (which
 * speaks it) and the PSP simulator (which stands in for that bank and refuses what it would refuse). A profile is data
 * only: each difference is a field, and `sources` lists where it was read. docs/psp-profiles.md explains each one.
 */

/** The profiles `PSP_PROFILE` (and the simulator's `PSP_SIMULATOR_PROFILE`) take. */
export const PSP_PROFILE_NAMES = ['bcb', 'efi', 'bb', 'itau', 'sicoob', 'inter', 'santander'] as const;
export type PspProfileName = (typeof PSP_PROFILE_NAMES)[number];

/**
 * How the OAuth client-credentials token is asked for (RFC 6749 section 4.4):
 * - `basic`: client id and secret in HTTP Basic (RFC 6749 section 2.3.1, the baseline);
 * - `form-body`: client id and secret as `client_id`/`client_secret` fields of the form body;
 * - `client-id-only`: `client_id` in the form body and no secret, the client certificate (mTLS) authenticating.
 */
export type PspTokenRequest = 'basic' | 'form-body' | 'client-id-only';

/** A value a profile sends that the operator configures (the adapter's `PSP_DEVELOPER_APP_KEY`, `PSP_ACCOUNT_NUMBER`). */
export type PspProfileSetting = 'developerAppKey' | 'accountNumber';

export interface PspProfile {
  name: PspProfileName;
  /** The bank, as people call it. */
  title: string;
  tokenRequest: PspTokenRequest;
  /** Query parameters the token request's URL carries besides the form body (`grant_type` for Santander). */
  tokenQuery: Readonly<Record<string, string>>;
  /** Headers every API Pix call carries, each taking the value of a setting. */
  extraHeaders: Readonly<Record<string, PspProfileSetting>>;
  /** Query parameters every API Pix call carries, each taking the value of a setting. */
  extraQuery: Readonly<Record<string, PspProfileSetting>>;
  /** How the bank hands out the client certificate; the adapter reads either (`PSP_MTLS_PFX` or the PEM pair). */
  certificateFormat: 'pem' | 'p12';
  /** What the PSP appends to the registered webhook URL when it calls back. */
  webhookPathSuffix: '' | '/pix';
  /**
   * The PSP calls back over mutual TLS with a certificate of its own CA and refuses to register a receiver that accepts
   * a connection without one: the callback listener must require it (`CALLBACK_CLIENT_CA`).
   */
  callbackMtls: boolean;
  /** Where each difference was read. */
  sources: readonly string[];
  /** What could not be checked against the bank's own documentation (said in the docs, never guessed). */
  unverified: readonly string[];
}

const BCB_API_PIX = 'https://github.com/bacen/pix-api';

const baseline: Omit<PspProfile, 'name' | 'title' | 'sources' | 'unverified'> = {
  tokenRequest: 'basic',
  tokenQuery: {},
  extraHeaders: {},
  extraQuery: {},
  certificateFormat: 'pem',
  webhookPathSuffix: '/pix',
  callbackMtls: false,
};

export const PSP_PROFILES: Readonly<Record<PspProfileName, PspProfile>> = {
  bcb: {
    ...baseline,
    name: 'bcb',
    title: 'API Pix as the Central Bank specifies it',
    sources: [BCB_API_PIX],
    unverified: [],
  },
  efi: {
    ...baseline,
    name: 'efi',
    title: 'Efí (formerly Gerencianet)',
    certificateFormat: 'p12',
    callbackMtls: true,
    sources: [
      'https://github.com/mpaivaana/error-report/blob/main/i18n/en/docusaurus-plugin-content-docs/current/api-pix/webhooks.md',
      'https://github.com/efipay/sdk-python-apis-efi/blob/master/examples/pix/webhooks/automatic/pix_config_webhook_automatic_charge.py',
      'https://dev.gerencianet.com.br/docs/api-pix-autenticacao-e-seguranca',
    ],
    unverified: [],
  },
  bb: {
    ...baseline,
    name: 'bb',
    title: 'Banco do Brasil',
    extraQuery: { 'gw-dev-app-key': 'developerAppKey' },
    certificateFormat: 'p12',
    sources: [
      'https://github.com/bacen/pix-api/issues/435',
      'https://github.com/imobanco/bb-wrapper',
      'https://developers.openpix.com.br/docs/bank-integrations/integration-banco-do-brasil-bank',
    ],
    unverified: [
      'the callback over mutual TLS: not found in what could be read',
      "the .p12 certificate: seen in client libraries' instructions, not in BB's documentation",
    ],
  },
  itau: {
    ...baseline,
    name: 'itau',
    title: 'Itaú Unibanco',
    tokenRequest: 'form-body',
    sources: ['https://github.com/emersonjrdev/Lunabe-Store/blob/main/CONFIGURAR_ITAU_PIX.md'],
    unverified: [
      "the token request's form-body credentials: seen in client code, not in Itaú's own documentation (its portal asks for an account)",
    ],
  },
  sicoob: {
    ...baseline,
    name: 'sicoob',
    title: 'Sicoob',
    tokenRequest: 'client-id-only',
    certificateFormat: 'p12',
    sources: [
      'https://github.com/SharpSistemas/SicoobAPI',
      'https://feed.nuget.org/packages/Sicoob.PIX/0.9.8',
    ],
    unverified: [
      "Sicoob's own portal (developers.sicoob.com.br) asks for an account: read through client libraries",
    ],
  },
  inter: {
    ...baseline,
    name: 'inter',
    title: 'Banco Inter',
    tokenRequest: 'form-body',
    extraHeaders: { 'x-conta-corrente': 'accountNumber' },
    sources: ['https://github.com/raniellyferreira/interbank-go'],
    unverified: [
      "Inter's own portal (developers.inter.co) could not be read: the form-body token and x-conta-corrente come from client libraries",
    ],
  },
  santander: {
    ...baseline,
    name: 'santander',
    title: 'Santander',
    tokenRequest: 'form-body',
    tokenQuery: { grant_type: 'client_credentials' },
    sources: ['https://github.com/erickafram/wifitocantins/blob/main/teste_variacao_santander.sh'],
    unverified: [
      "Santander's own documentation could not be read: `grant_type` in the token URL's query and the form-body credentials come from client code that tried both styles",
    ],
  },
};

/** The profiles that send `setting` (a header or query parameter of theirs takes its value): they require it. */
export function profilesSending(setting: PspProfileSetting): PspProfileName[] {
  return PSP_PROFILE_NAMES.filter((name) => {
    const { extraHeaders, extraQuery } = PSP_PROFILES[name];
    return [...Object.values(extraHeaders), ...Object.values(extraQuery)].includes(setting);
  });
}

/** The profiles whose token request carries no client secret (the client certificate vouching for the client id). */
export const PROFILES_WITHOUT_SECRET: readonly PspProfileName[] = PSP_PROFILE_NAMES.filter(
  (name) => PSP_PROFILES[name].tokenRequest === 'client-id-only',
);
