import { createHash } from 'node:crypto';

/** What a token mailed to a person proves when it comes back. */
export type AccountTokenPurpose = 'verify_email' | 'reset_password' | 'operator_invitation';

/** How long each mailed link works. */
export const TOKEN_LIFETIME_MS = {
  verify_email: 48 * 3600_000,
  reset_password: 3600_000,
  invitation: 7 * 24 * 3600_000,
  operator_invitation: 7 * 24 * 3600_000,
} as const;

const TOKEN_BYTES = 32;

/** A token as it travels (base64url of 256 random bits) and as it is kept (the hex SHA-256 of that text). */
export interface OneTimeToken {
  token: string;
  hash: string;
}

/** The hash a token is stored and looked up under: a copy of the table holds no link that works. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new token; the randomness is passed in. */
export function newOneTimeToken(randomBytes: (size: number) => Buffer): OneTimeToken {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, hash: hashToken(token) };
}

/** Whether a text can be a token at all (43 base64url characters): anything else is refused unlooked-up. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** The link a token travels in: the dashboard's public address, the page, the token as its query. */
export function tokenLink(publicUrl: string, path: string, token: string): string {
  const url = new URL(path, publicUrl);
  url.searchParams.set('token', token);
  return url.toString();
}
