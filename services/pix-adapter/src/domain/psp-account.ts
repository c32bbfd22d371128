import type { PspAccountView } from '@gateway/contracts';

/** A client id as answered: its first four characters, the rest hidden (a short one wholly). */
export function maskClientId(clientId: string): string {
  if (clientId.length <= 8) return '*'.repeat(clientId.length);
  return `${clientId.slice(0, 4)}${'*'.repeat(Math.min(clientId.length - 4, 12))}`;
}

/** What of a stored account may be answered: never a secret, a certificate or a passphrase. */
export function pspAccountView(account: {
  businessId: string;
  accountId: string;
  profile: PspAccountView['profile'];
  baseUrl: string;
  oauthTokenUrl: string;
  clientId: string;
  pixKey: string;
  certificateSealed: string | null;
  updatedAt: Date;
}): PspAccountView {
  return {
    business_id: account.businessId,
    account_id: account.accountId,
    profile: account.profile,
    base_url: account.baseUrl,
    oauth_token_url: account.oauthTokenUrl,
    client_id_masked: maskClientId(account.clientId),
    pix_key: account.pixKey,
    has_client_certificate: account.certificateSealed !== null,
    updated_at: account.updatedAt.toISOString(),
  };
}
