import type { EntityManager } from 'typeorm';
import { newestFirstPage } from '@gateway/persistence';
import type { Environment } from '../domain/api-key';
import { ApiKeyEntity } from './api-key.entity';
import { BusinessEntity } from './business.entity';

/** A key not revoked, with the business it acts for: what checking a presented key needs. */
export interface ActiveApiKey {
  hash: Buffer;
  businessId: string;
  businessName: string;
  environment: Environment;
}

/** Stores the business; resolves it as stored (its creation time set). */
export function insertBusiness(
  manager: EntityManager,
  business: Pick<BusinessEntity, 'id' | 'name' | 'environment'>,
): Promise<BusinessEntity> {
  return manager.save(manager.create(BusinessEntity, business));
}

export async function insertApiKey(
  manager: EntityManager,
  key: Pick<ApiKeyEntity, 'keyPrefix' | 'hash' | 'businessId'>,
): Promise<void> {
  await manager.insert(ApiKeyEntity, key);
}

export function findBusiness(manager: EntityManager, businessId: string): Promise<BusinessEntity | null> {
  return manager.findOneBy(BusinessEntity, { id: businessId });
}

/** A business's newest keys, at most `limit`, and whether it has older ones. */
export async function listApiKeysOf(
  manager: EntityManager,
  businessId: string,
  limit: number,
): Promise<{ keys: ApiKeyEntity[]; hasMore: boolean }> {
  const keys = manager
    .createQueryBuilder(ApiKeyEntity, 'key')
    .where('key.business_id = :businessId', { businessId });
  const page = await newestFirstPage(
    keys,
    { time: 'created_at', tiebreak: 'key_prefix', publicId: 'key_prefix' },
    { limit, startingAfter: null },
  );
  return { keys: page.rows, hasMore: page.hasMore };
}

/** The key of this prefix if it is not revoked, with its business; null otherwise. */
export async function findActiveApiKey(
  manager: EntityManager,
  keyPrefix: string,
): Promise<ActiveApiKey | null> {
  const rows: Array<{ hash: Buffer; business_id: string; name: string; environment: Environment }> =
    await manager.query(
      `SELECT k.hash, k.business_id, b.name, b.environment
         FROM api_keys k JOIN businesses b ON b.id = k.business_id
        WHERE k.key_prefix = $1 AND k.revoked_at IS NULL`,
      [keyPrefix],
    );
  const row = rows[0];
  return row
    ? { hash: row.hash, businessId: row.business_id, businessName: row.name, environment: row.environment }
    : null;
}

export function apiKeyExists(manager: EntityManager, keyPrefix: string): Promise<boolean> {
  return manager.existsBy(ApiKeyEntity, { keyPrefix });
}

/** Marks the key revoked now, unless it is revoked already. */
export async function markApiKeyRevoked(manager: EntityManager, keyPrefix: string): Promise<void> {
  await manager.query('UPDATE api_keys SET revoked_at = now() WHERE key_prefix = $1 AND revoked_at IS NULL', [
    keyPrefix,
  ]);
}
