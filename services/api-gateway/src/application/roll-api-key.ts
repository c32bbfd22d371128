import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ApiKeyScope } from '@gateway/contracts';
import type { ApiKeyCache } from '../clients/api-key-cache';
import { apiKeyStatus, generateApiKey, type ApiKeyStatus, type Environment } from '../domain/api-key';
import { insertApiKey, lockApiKey, markApiKeyRolled } from '../persistence';

/** A roll's outcome: the new key (shown once) and when the old one stops working; or why there is none. */
export type RollOutcome =
  | {
      kind: 'rolled';
      businessId: string;
      apiKey: string;
      keyPrefix: string;
      scopes: ApiKeyScope[] | null;
      previousExpiresAt: Date;
    }
  | { kind: 'not_found' }
  | { kind: 'refused'; status: Exclude<ApiKeyStatus, 'active'> };

/**
 * Rolls a key: a new key of the same business and scopes, while the old one keeps working for `overlapSeconds` more
 * (0: it stops now). Only an active key rolls, once: the old key's row is locked for the roll, so of two rolls of
 * one key the second finds it rolled already. The old key's cached lookup is dropped, so its expiry holds at once.
 */
export async function rollApiKey(
  deps: { dataSource: DataSource; cache: ApiKeyCache; environment: Environment },
  keyPrefix: string,
  overlapSeconds: number,
): Promise<RollOutcome> {
  const outcome = await deps.dataSource.transaction(async (manager): Promise<RollOutcome> => {
    const old = await lockApiKey(manager, keyPrefix);
    if (!old) return { kind: 'not_found' };
    const status = apiKeyStatus(old, new Date());
    if (status !== 'active') return { kind: 'refused', status };
    const issued = generateApiKey(deps.environment, randomBytes);
    await insertApiKey(manager, {
      keyPrefix: issued.keyPrefix,
      hash: issued.hash,
      businessId: old.businessId,
      scopes: old.scopes,
      purpose: old.purpose,
    });
    const previousExpiresAt = await markApiKeyRolled(manager, keyPrefix, issued.keyPrefix, overlapSeconds);
    return {
      kind: 'rolled',
      businessId: old.businessId,
      apiKey: issued.apiKey,
      keyPrefix: issued.keyPrefix,
      scopes: old.scopes,
      previousExpiresAt,
    };
  });
  if (outcome.kind === 'rolled') await deps.cache.drop(keyPrefix);
  return outcome;
}
