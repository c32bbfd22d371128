import { createHash, timingSafeEqual } from 'node:crypto';
import { READ_ONLY_SCOPES, apiKeyScopes, type ApiKeyScope } from '@gateway/contracts';

export const environments = ['sandbox', 'production'] as const;

/**
 * Whom a key is for: `merchant`, every key a business is given; `dashboard`, the key the merchant dashboard holds
 * sealed for the business and acts with (never shown to anyone). Only the operator API marks a key `dashboard`; such a
 * key is counted against a budget of its own (DASHBOARD_RATE_LIMIT_PER_MINUTE), shared by everyone using the dashboard.
 */
export const apiKeyPurposes = ['merchant', 'dashboard'] as const;
export type ApiKeyPurpose = (typeof apiKeyPurposes)[number];
export type Environment = (typeof environments)[number];

const KEY_PREFIX_BY_ENVIRONMENT: Readonly<Record<Environment, string>> = {
  sandbox: 'sk_test_',
  production: 'sk_live_',
};
/** How many random bytes a key carries: their base64url is the 43 characters after the environment prefix. */
const KEY_RANDOM_BYTES = 32;
/** `sk_test_`/`sk_live_` + base64url of KEY_RANDOM_BYTES random bytes (43 characters). */
export const API_KEY_PATTERN = /^sk_(test|live)_([A-Za-z0-9_-]{43})$/;
/** How much of the random part names the key (lookup and revocation); the rest stays secret. */
const KEY_PREFIX_LENGTH = 12;
export const KEY_PREFIX = new RegExp(`^[A-Za-z0-9_-]{${KEY_PREFIX_LENGTH}}$`);

export interface IssuedApiKey {
  /** Shown once to the operator, never stored. */
  apiKey: string;
  keyPrefix: string;
  hash: Buffer;
}

/** Source of cryptographically random bytes (node's `crypto.randomBytes`), passed in to keep the domain pure. */
export type RandomBytes = (size: number) => Uint8Array;

export interface PresentedApiKey {
  environment: Environment;
  keyPrefix: string;
}

export function hashApiKey(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey, 'utf8').digest();
}

export function generateApiKey(environment: Environment, randomBytes: RandomBytes): IssuedApiKey {
  const random = Buffer.from(randomBytes(KEY_RANDOM_BYTES)).toString('base64url');
  const apiKey = `${KEY_PREFIX_BY_ENVIRONMENT[environment]}${random}`;
  return { apiKey, keyPrefix: random.slice(0, KEY_PREFIX_LENGTH), hash: hashApiKey(apiKey) };
}

/** The environment and lookup prefix of a well-formed key, or null for anything else. */
export function parseApiKey(text: string): PresentedApiKey | null {
  const match = API_KEY_PATTERN.exec(text);
  if (!match) return null;
  return {
    environment: match[1] === 'live' ? 'production' : 'sandbox',
    keyPrefix: match[2]!.slice(0, KEY_PREFIX_LENGTH),
  };
}

/** Whether a value (a path segment) can name a key: its lookup prefix is KEY_PREFIX_LENGTH url-safe characters. */
export function hasKeyPrefixShape(value: unknown): value is string {
  return typeof value === 'string' && KEY_PREFIX.test(value);
}

/** Constant-time comparison of two SHA-256 digests (always 32 bytes, so the lengths never leak anything). */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The scopes a key is issued with, from what the operator asked for (known scopes, or `read_only` for every `:read`
 * one): each once, in the catalog's order.
 */
export function scopesToGrant(requested: readonly string[]): ApiKeyScope[] {
  const wanted = new Set(
    requested.flatMap((scope) =>
      scope === READ_ONLY_SCOPES ? apiKeyScopes.filter((known) => known.endsWith(':read')) : [scope],
    ),
  );
  return apiKeyScopes.filter((scope) => wanted.has(scope));
}

/** Whether a key's scopes (null: a key without scopes, which has them all) allow `required`; `:write` covers `:read`. */
export function scopesAllow(scopes: readonly ApiKeyScope[] | null, required: ApiKeyScope): boolean {
  if (scopes === null) return true;
  const writeOf = required.endsWith(':read') ? required.replace(/:read$/, ':write') : null;
  return scopes.some((granted) => granted === required || granted === writeOf);
}

/** How long a rolled key keeps working beside its successor, unless the operator says otherwise: a day. */
export const ROLL_OVERLAP_DEFAULT_SECONDS = 24 * 60 * 60;
/** The longest overlap a roll may give the old key: a week. */
export const ROLL_OVERLAP_MAX_SECONDS = 7 * 24 * 60 * 60;

/**
 * Where a key stands: `active`; `rolled` (a successor is issued, and it still works until it expires); `expired`;
 * `revoked`.
 */
export const apiKeyStatuses = ['active', 'rolled', 'expired', 'revoked'] as const;
export type ApiKeyStatus = (typeof apiKeyStatuses)[number];

export function apiKeyStatus(
  key: { revokedAt: Date | null; expiresAt: Date | null; rolledTo: string | null },
  now: Date,
): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return key.rolledTo ? 'rolled' : 'active';
}
