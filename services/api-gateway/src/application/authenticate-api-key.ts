import type { DataSource } from 'typeorm';
import type { ApiKeyScope } from '@gateway/contracts';
import type { ApiKeyCache, CachedKey } from '../clients/api-key-cache';
import {
  digestsEqual,
  hashApiKey,
  parseApiKey,
  type ApiKeyPurpose,
  type Environment,
} from '../domain/api-key';
import { findActiveApiKey } from '../persistence';

/** Who a request acts for, once its API key checked out. */
export interface Identity {
  businessId: string;
  businessName: string;
  keyPrefix: string;
  /** What the key may do; null: everything. */
  scopes: ApiKeyScope[] | null;
  /** Whom the key is for: a `dashboard` key has a rate limit of its own. */
  purpose: ApiKeyPurpose;
}

/** What the use cases on businesses and their API keys need. */
export interface IdentityDeps {
  dataSource: DataSource;
  /** Key lookups, cached briefly. */
  cache: ApiKeyCache;
  /** The environment this gateway serves: its businesses and keys are of it, a key of the other never works. */
  environment: Environment;
}

/**
 * The identity behind a presented key, or null when it is malformed, unknown, revoked, expired or of another
 * environment. Only the key's hash is stored; lookups are cached briefly (an expiry is checked on every request).
 */
export async function authenticateApiKey(deps: IdentityDeps, presented: string): Promise<Identity | null> {
  const parsed = parseApiKey(presented);
  if (!parsed || parsed.environment !== deps.environment) return null;
  const stored = await lookUp(deps, parsed.keyPrefix);
  if (!stored || stored.environment !== deps.environment) return null;
  if (!digestsEqual(hashApiKey(presented), Buffer.from(stored.hash, 'hex'))) return null;
  if (stored.expires_at && Date.parse(stored.expires_at) <= Date.now()) return null;
  return {
    businessId: stored.business_id,
    businessName: stored.business_name,
    keyPrefix: parsed.keyPrefix,
    scopes: stored.scopes ?? null,
    purpose: stored.purpose ?? 'merchant',
  };
}

async function lookUp(deps: IdentityDeps, keyPrefix: string): Promise<CachedKey | null> {
  const cached = await deps.cache.read(keyPrefix);
  if (cached !== undefined) return cached;
  const key = await findActiveApiKey(deps.dataSource.manager, keyPrefix);
  const found: CachedKey | null = key
    ? {
        hash: key.hash.toString('hex'),
        business_id: key.businessId,
        business_name: key.businessName,
        environment: key.environment,
        scopes: key.scopes,
        expires_at: key.expiresAt?.toISOString() ?? null,
        purpose: key.purpose,
      }
    : null;
  deps.cache.write(keyPrefix, found);
  return found;
}
