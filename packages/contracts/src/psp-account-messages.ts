import { createHmac } from 'node:crypto';
import Joi from 'joi';
import { defineCommand } from './message';
import { businessId, isoDate } from './common';
import {
  PSP_PROFILE_NAMES,
  PROFILES_WITHOUT_SECRET,
  profilesSending,
  type PspProfileName,
} from './psp-profiles';

// A business's own PSP account (the direct model, docs/money-model.md#custodial-and-direct-models): the operator
// sets it through the gateway, the PIX adapter keeps it with its secrets sealed and opens that business's charges
// there. The secrets travel once, in the set command; no answer ever carries them.

/** The id of a business's PSP account as the adapter records it on each charge opened there. */
export const pspAccountId = Joi.string().pattern(/^pspacc_[A-Za-z0-9_-]{24}$/);

const httpUrl = Joi.string()
  .uri({ scheme: ['http', 'https'] })
  .max(2000)
  .replace(/\/+$/, '');

/** What the operator gives: where the business's PSP is, its OAuth client, its receiving key, its certificate. */
export interface PspAccountSettings {
  profile: PspProfileName;
  /** Where the PSP mounts API Pix v2, its version path included (`https://pix.example.com/v2`). */
  base_url: string;
  oauth_token_url: string;
  client_id: string;
  /** Absent only with a profile whose token is issued for the client id alone (the certificate vouching). */
  client_secret?: string | null;
  /** The business's receiving Pix key at that PSP: its charges are paid into it. */
  pix_key: string;
  /** The client certificate as a base64 PKCS#12 file (.p12/.pfx), and its passphrase. */
  certificate_p12?: string | null;
  certificate_passphrase?: string | null;
  /** Banco do Brasil's developer application key; required by the `bb` profile. */
  developer_app_key?: string | null;
  /** Inter's account number; required by the `inter` profile. */
  account_number?: string | null;
}

/** The fields of a PSP account as the operator sets it (the gateway's body and the command share them). */
export const pspAccountSettingsFields = {
  profile: Joi.string()
    .valid(...PSP_PROFILE_NAMES)
    .required()
    .description('How the PSP differs from the API Pix baseline (docs/psp-profiles.md).'),
  base_url: httpUrl.required().description('Where the PSP mounts API Pix v2, its version path included.'),
  oauth_token_url: httpUrl.required().description("The PSP's OAuth token endpoint (client credentials)."),
  client_id: Joi.string().min(1).max(500).required().description('The OAuth client id; answered masked.'),
  client_secret: Joi.string()
    .min(1)
    .max(2000)
    .allow(null)
    .description(
      'The OAuth client secret: sealed at rest, never answered. Required but with a profile whose token is issued for the client id alone.',
    ),
  pix_key: Joi.string().min(1).max(77).required().description("The business's receiving Pix key at its PSP."),
  certificate_p12: Joi.string()
    .base64()
    .max(64_000)
    .allow(null)
    .description('The client certificate, a base64 PKCS#12 file: sealed at rest, never answered.'),
  certificate_passphrase: Joi.string()
    .max(500)
    .allow(null)
    .description('The passphrase of certificate_p12: sealed at rest, never answered.'),
  developer_app_key: Joi.string()
    .max(200)
    .allow(null)
    .description("Banco do Brasil's developer application key (profile bb)."),
  account_number: Joi.string()
    .pattern(/^[0-9]{1,20}$/)
    .allow(null)
    .description("Inter's account number (profile inter)."),
};

/**
 * Which fields the account's profile needs and it lacks, none when it is complete: a secret (unless the profile's
 * token is issued for the client id alone), BB's developer key, Inter's account number; a passphrase only with a
 * certificate.
 */
export function pspAccountProblems(settings: PspAccountSettings): Array<keyof PspAccountSettings> {
  const problems: Array<keyof PspAccountSettings> = [];
  if (!settings.client_secret && !PROFILES_WITHOUT_SECRET.includes(settings.profile))
    problems.push('client_secret');
  if (!settings.developer_app_key && profilesSending('developerAppKey').includes(settings.profile))
    problems.push('developer_app_key');
  if (!settings.account_number && profilesSending('accountNumber').includes(settings.profile))
    problems.push('account_number');
  if (settings.certificate_passphrase && !settings.certificate_p12) problems.push('certificate_passphrase');
  return problems;
}

/** A business's PSP account as answered: no secret, no certificate, the client id masked. */
export interface PspAccountView {
  business_id: string;
  account_id: string;
  profile: PspProfileName;
  base_url: string;
  oauth_token_url: string;
  client_id_masked: string;
  pix_key: string;
  has_client_certificate: boolean;
  updated_at: string;
}
export const pspAccountViewSchema = Joi.object<PspAccountView>({
  business_id: businessId.required(),
  account_id: pspAccountId.required(),
  profile: Joi.string()
    .valid(...PSP_PROFILE_NAMES)
    .required(),
  base_url: Joi.string().required(),
  oauth_token_url: Joi.string().required(),
  client_id_masked: Joi.string()
    .required()
    .description('The first characters of the client id, the rest hidden.'),
  pix_key: Joi.string().required(),
  has_client_certificate: Joi.boolean().required(),
  updated_at: isoDate.required(),
});

export interface SetPspAccount extends PspAccountSettings {
  business_id: string;
}
/** Sets (or replaces) the business's own PSP account: charges opened afterwards go there. Operator only. */
export const setPspAccount = defineCommand<SetPspAccount, PspAccountView>(
  'pix.psp-account.set.v1',
  'pix-adapter',
  Joi.object<SetPspAccount>({ business_id: businessId.required(), ...pspAccountSettingsFields }),
  pspAccountViewSchema,
  ['INVALID_FIELDS'],
);

export interface PspAccountOf {
  business_id: string;
}
/** The business's own PSP account; NOT_FOUND when it uses the platform's. */
export const getPspAccount = defineCommand<PspAccountOf, PspAccountView>(
  'pix.psp-account.get.v1',
  'pix-adapter',
  Joi.object<PspAccountOf>({ business_id: businessId.required() }),
  pspAccountViewSchema,
  ['NOT_FOUND'],
);

/**
 * Returns the business to the platform's PSP account. Refused (INVALID_STATUS) while a charge opened at its own
 * account is still open: that charge's later calls and callbacks need the account.
 */
export const removePspAccount = defineCommand<PspAccountOf, { removed: true }>(
  'pix.psp-account.remove.v1',
  'pix-adapter',
  Joi.object<PspAccountOf>({ business_id: businessId.required() }),
  Joi.object({ removed: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/**
 * The token a business's own PSP account calls back with: derived from the platform's callback token and the account,
 * so a business that reads its webhook's URL back from its own PSP learns its own account's token only, never the
 * platform's nor another account's.
 */
export function accountCallbackToken(platformToken: string, accountId: string): string {
  return createHmac('sha256', platformToken).update(`psp-account-callback:${accountId}`).digest('base64url');
}
