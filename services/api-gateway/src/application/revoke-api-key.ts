import type { DataSource } from 'typeorm';
import type { ApiKeyCache } from '../clients/api-key-cache';
import { apiKeyExists, markApiKeyRevoked } from '../persistence';

/** Revokes a key (idempotently) and drops its cached lookup; false when no such key exists. */
export async function revokeApiKey(
  deps: { dataSource: DataSource; cache: ApiKeyCache },
  keyPrefix: string,
): Promise<boolean> {
  if (!(await apiKeyExists(deps.dataSource.manager, keyPrefix))) return false;
  await markApiKeyRevoked(deps.dataSource.manager, keyPrefix);
  // A replica that read the key just before the update may cache it once more: the cache's TTL bounds that to 5 s.
  await deps.cache.drop(keyPrefix);
  return true;
}
