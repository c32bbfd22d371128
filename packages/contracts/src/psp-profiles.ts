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

/**
 * The token request's body: `form` (`application/x-www-form-urlencoded`, RFC 6749 section 4.4.2, the baseline) or `json`
 * (the same fields as a JSON object, `application/json`).
 */
export type PspTokenBody = 'form' | 'json';

/**
 * A value a profile sends: one the operator configures for the profile (the adapter's `PSP_DEVELOPER_APP_KEY`,
 * `PSP_ACCOUNT_NUMBER`) or the OAuth client id (`PSP_CLIENT_ID`), which every profile has.
 */
export type PspProfileSetting = 'developerAppKey' | 'accountNumber' | 'clientId';

/** The settings only some profiles need, which the configuration then requires. */
export type PspProfileOwnSetting = Exclude<PspProfileSetting, 'clientId'>;

/**
 * How a receiving PSP takes the receiver's defence against a MED (the payer's bank's infraction notice), when it takes
 * one through its API: API Pix itself has no such operation.
 * - `api: 'efi-infracoes'`: Efí's `GET /v2/gn/infracoes` (the account's infractions in a period, scope
 *   `gn.infractions.read`) and `POST /v2/gn/infracoes/:idInfracao/defesa` `{analise, justificativa}` (scope
 *   `gn.infractions.write`);
 * - `maxTextLength`: the longest `justificativa` (characters) the PSP takes.
 */
export interface PspMedDefence {
  api: 'efi-infracoes';
  maxTextLength: number;
}

/** The fields in which a profile may differ from the baseline; each difference has a source or an `unverified` entry. */
export const PSP_PROFILE_DIFFERENCES = [
  'tokenRequest',
  'tokenBody',
  'tokenQuery',
  'extraHeaders',
  'extraQuery',
  'callbackMtls',
  'medDefence',
  'cobv',
  'automaticPix',
] as const;
export type PspProfileDifference = (typeof PSP_PROFILE_DIFFERENCES)[number];

export interface PspProfile {
  name: PspProfileName;
  /** The bank, as people call it. */
  title: string;
  tokenRequest: PspTokenRequest;
  tokenBody: PspTokenBody;
  /** Query parameters the token request's URL carries besides the body (`grant_type` for Santander). */
  tokenQuery: Readonly<Record<string, string>>;
  /** Headers every API Pix call carries, each taking the value of a setting. */
  extraHeaders: Readonly<Record<string, PspProfileSetting>>;
  /** Query parameters every API Pix call carries, each taking the value of a setting. */
  extraQuery: Readonly<Record<string, PspProfileSetting>>;
  /**
   * The PSP calls back over mutual TLS with a certificate of its own CA and refuses to register a receiver that accepts
   * a connection without one: the callback listener must require it (`CALLBACK_CLIENT_CA`).
   */
  callbackMtls: boolean;
  /** How the PSP takes a defence against a MED through its API; null: it takes none (the merchant cannot defend). */
  medDefence: PspMedDefence | null;
  /**
   * The PSP opens charges with a due date (API Pix `PUT/PATCH/GET /cobv`, scopes `cobv.write cobv.read`): false, a
   * payment with `pix.due` at an account of this profile is refused (422 DUE_DATE_NOT_SUPPORTED) before the PSP is asked.
   */
  cobv: boolean;
  /**
   * The PSP takes Pix Automático (API Pix `/rec`, `/solicrec`, `/locrec`, `/cobr` and their webhooks, in a token of
   * their own): false, a subscription at an account of this profile is refused (AUTOMATIC_PIX_NOT_SUPPORTED) before
   * the PSP is asked.
   */
  automaticPix: boolean;
  /** Where each difference from the baseline was read (the baseline's own: `API_PIX_BASELINE_SOURCE`). */
  sources: Readonly<Partial<Record<PspProfileDifference, readonly string[]>>>;
  /** What could not be checked against the bank's own documentation, by field (said in the docs, never guessed). */
  unverified: Readonly<Partial<Record<PspProfileDifference, string>>>;
}

/** Where the baseline itself is specified: the Central Bank's API Pix. */
export const API_PIX_BASELINE_SOURCE = 'https://github.com/bacen/pix-api';

/** API Pix as the Central Bank specifies it: what every profile differs from. */
export const PSP_BASELINE: Readonly<Pick<PspProfile, PspProfileDifference>> = {
  tokenRequest: 'basic',
  tokenBody: 'form',
  tokenQuery: {},
  extraHeaders: {},
  extraQuery: {},
  callbackMtls: false,
  medDefence: null,
  cobv: true,
  automaticPix: true,
};

/** Why a profile's `cobv` is as it is where it was not read at the bank itself. */
const COBV_ASSUMED = (bank: string) =>
  `whether ${bank} opens charges with a due date (\`/cobv\`) was not confirmed in what could be read: assumed, as API ` +
  'Pix specifies it; a PSP that answers 404 or 403 to it is a refusal (DUE_DATE_NOT_SUPPORTED), never retried';

/** Why a profile's `automaticPix` is as it is where it was not read at the bank itself. */
const AUTOMATIC_PIX_ASSUMED = (bank: string) =>
  `whether ${bank} takes Pix Automático (\`/rec\`, \`/cobr\`) was not confirmed in what could be read: assumed, as ` +
  'API Pix 2.9.0 specifies it; a PSP that answers `POST /rec` with 404 or 403 is a refusal (AUTOMATIC_PIX_NOT_SUPPORTED), ' +
  'never retried';

const EFI_WEBHOOKS = 'https://dev.efipay.com.br/docs/api-pix/webhooks/';
const EFI_NODE_SDK_TOKEN = 'https://github.com/efipay/sdk-node-apis-efi/blob/HEAD/src/wrapper.ts';
const EFI_NODE_SDK_ENDPOINTS =
  'https://github.com/efipay/sdk-node-apis-efi/blob/HEAD/src/constants/endpoints.ts';
const EFI_PHP_SDK_ENDPOINTS =
  'https://github.com/efipay/sdk-php-apis-efi/blob/HEAD/src/Efi/Endpoints/Pix.php';
const EFI_MED_DEFENCE_EXAMPLE =
  'https://github.com/efipay/sdk-typescript-apis-efi/blob/HEAD/examples/exclusives/med/medDefense.ts';
const SICOOB_API = 'https://github.com/SharpSistemas/SicoobAPI';

export const PSP_PROFILES: Readonly<Record<PspProfileName, PspProfile>> = {
  bcb: {
    ...PSP_BASELINE,
    name: 'bcb',
    title: 'API Pix as the Central Bank specifies it',
    sources: {},
    unverified: {},
  },
  efi: {
    ...PSP_BASELINE,
    name: 'efi',
    title: 'Efí (formerly Gerencianet)',
    tokenBody: 'json',
    callbackMtls: true,
    medDefence: { api: 'efi-infracoes', maxTextLength: 1000 },
    sources: {
      tokenBody: [EFI_NODE_SDK_TOKEN, 'https://dev.efipay.com.br/docs/api-pix/credenciais/'],
      callbackMtls: [EFI_WEBHOOKS, 'https://github.com/efipay/mtls-webhook'],
      medDefence: [EFI_NODE_SDK_ENDPOINTS, EFI_PHP_SDK_ENDPOINTS, EFI_MED_DEFENCE_EXAMPLE],
      // `pixCreateDueCharge` PUT /v2/cobv/:txid, `pixDetailDueCharge`, `pixUpdateDueCharge`.
      cobv: [EFI_NODE_SDK_ENDPOINTS, EFI_PHP_SDK_ENDPOINTS],
    },
    unverified: {
      medDefence:
        "the paths, scopes and the body's fields (`analise`, `justificativa`) are read in Efí's SDKs; the longest " +
        "`justificativa` (1000 assumed), the values of `analise` besides `aceito` (`negado` assumed), the infraction's " +
        'fields and statuses, the answer and the errors were not found in what could be read',
      automaticPix: AUTOMATIC_PIX_ASSUMED('Efí'),
    },
  },
  bb: {
    ...PSP_BASELINE,
    name: 'bb',
    title: 'Banco do Brasil',
    extraQuery: { 'gw-dev-app-key': 'developerAppKey' },
    sources: {
      extraQuery: [
        'https://github.com/bacen/pix-api/issues/435',
        'https://github.com/imobanco/bb-wrapper',
        'https://developers.openpix.com.br/docs/bank-integrations/integration-banco-do-brasil-bank',
      ],
    },
    unverified: {
      cobv: COBV_ASSUMED('Banco do Brasil'),
      automaticPix: AUTOMATIC_PIX_ASSUMED('Banco do Brasil'),
      callbackMtls: 'whether BB calls back over mutual TLS: not found in what could be read (assumed not)',
      extraQuery:
        'the sandbox parameter: third-party BB clients send `gw-app-key` instead in production; which one a production ' +
        'application key takes was not confirmed in BB’s own documentation',
    },
  },
  itau: {
    ...PSP_BASELINE,
    name: 'itau',
    title: 'Itaú Unibanco',
    tokenRequest: 'form-body',
    sources: {
      tokenRequest: ['https://github.com/emersonjrdev/Lunabe-Store/blob/main/CONFIGURAR_ITAU_PIX.md'],
    },
    unverified: {
      cobv: COBV_ASSUMED('Itaú'),
      automaticPix: AUTOMATIC_PIX_ASSUMED('Itaú'),
      tokenRequest:
        "the form-body credentials: seen in client code, not in Itaú's own documentation (its portal asks for an account)",
    },
  },
  sicoob: {
    ...PSP_BASELINE,
    name: 'sicoob',
    title: 'Sicoob',
    tokenRequest: 'client-id-only',
    extraHeaders: { 'x-sicoob-clientid': 'clientId' },
    sources: {
      tokenRequest: [`${SICOOB_API}/blob/HEAD/Sicoob.Shared/Sicoob.cs`],
      extraHeaders: [`${SICOOB_API}/blob/HEAD/Sicoob.PIX/SicoobPIX.cs`],
    },
    unverified: {
      cobv: COBV_ASSUMED('Sicoob'),
      automaticPix: AUTOMATIC_PIX_ASSUMED('Sicoob'),
      tokenRequest:
        "read in a client library (Sicoob's portal, developers.sicoob.com.br, asks for an account): it sends no secret, " +
        'but whether Sicoob refuses a token request that carries one is not known, so the simulator does not',
      extraHeaders:
        "read in a client library, not in Sicoob's own documentation; other clients send the client id as `client_id` " +
        'too, which Sicoob may also expect',
    },
  },
  inter: {
    ...PSP_BASELINE,
    name: 'inter',
    title: 'Banco Inter',
    tokenRequest: 'form-body',
    extraHeaders: { 'x-conta-corrente': 'accountNumber' },
    sources: {
      tokenRequest: ['https://github.com/raniellyferreira/interbank-go'],
      extraHeaders: ['https://github.com/raniellyferreira/interbank-go'],
    },
    unverified: {
      cobv: COBV_ASSUMED('Banco Inter'),
      automaticPix: AUTOMATIC_PIX_ASSUMED('Banco Inter'),
      tokenRequest: "Inter's own portal (developers.inter.co) could not be read: read in a client library",
      extraHeaders:
        "Inter's own portal (developers.inter.co) could not be read: read in a client library; it may be optional for " +
        'a client with a single account, which the simulator does not model (it always asks for it)',
      callbackMtls:
        "whether Inter calls back over mutual TLS: Inter's credential bundle is said to ship a webhook CA, not " +
        'confirmed in what could be read (assumed not)',
    },
  },
  santander: {
    ...PSP_BASELINE,
    name: 'santander',
    title: 'Santander',
    tokenRequest: 'form-body',
    tokenQuery: { grant_type: 'client_credentials' },
    sources: {
      tokenRequest: ['https://github.com/erickafram/wifitocantins/blob/main/teste_variacao_santander.sh'],
      tokenQuery: ['https://github.com/erickafram/wifitocantins/blob/main/teste_variacao_santander.sh'],
    },
    unverified: {
      cobv: COBV_ASSUMED('Santander'),
      automaticPix: AUTOMATIC_PIX_ASSUMED('Santander'),
      tokenRequest:
        "Santander's own documentation could not be read: read in client code that tried both styles",
      tokenQuery:
        "Santander's own documentation could not be read: read in client code that tried both styles",
    },
  },
};

/** The profiles that send `setting` (a header or query parameter of theirs takes its value): they require it. */
export function profilesSending(setting: PspProfileOwnSetting): PspProfileName[] {
  return PSP_PROFILE_NAMES.filter((name) => {
    const { extraHeaders, extraQuery } = PSP_PROFILES[name];
    return [...Object.values(extraHeaders), ...Object.values(extraQuery)].includes(setting);
  });
}

/** The profiles whose token request carries no client secret (the client certificate vouching for the client id). */
export const PROFILES_WITHOUT_SECRET: readonly PspProfileName[] = PSP_PROFILE_NAMES.filter(
  (name) => PSP_PROFILES[name].tokenRequest === 'client-id-only',
);

/** The profiles whose PSP calls the webhook back over mutual TLS, refusing a receiver that does not ask for its certificate. */
export function profilesCallingBackOverMtls(): PspProfileName[] {
  return PSP_PROFILE_NAMES.filter((name) => PSP_PROFILES[name].callbackMtls);
}

/**
 * The longest defence the gateway takes for a dispute (POST /v1/disputes/{id}/defence): what every PSP that takes one
 * takes, so a defence the API accepts is never refused for its length by the business's PSP.
 */
export const MED_DEFENCE_MAX_LENGTH: number = Math.min(
  ...PSP_PROFILE_NAMES.flatMap((name) => {
    const defence = PSP_PROFILES[name].medDefence;
    return defence === null ? [] : [defence.maxTextLength];
  }),
);
