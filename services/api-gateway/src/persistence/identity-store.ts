import type { EntityManager } from 'typeorm';
import type { ApiKeyScope } from '@gateway/contracts';
import { newestFirstPage } from '@gateway/persistence';
import type { ApiKeyPurpose, Environment } from '../domain/api-key';
import { ApiKeyEntity } from './api-key.entity';
import { BusinessEntity } from './business.entity';

/** A key neither revoked nor expired, with the business it acts for: what checking a presented key needs. */
export interface ActiveApiKey {
  hash: Buffer;
  businessId: string;
  businessName: string;
  environment: Environment;
  scopes: ApiKeyScope[] | null;
  expiresAt: Date | null;
  purpose: ApiKeyPurpose;
}

/** A key as a roll finds it, locked for the roll's transaction. */
export type LockedApiKey = Pick<
  ApiKeyEntity,
  'keyPrefix' | 'businessId' | 'scopes' | 'revokedAt' | 'expiresAt' | 'rolledTo' | 'purpose'
>;

/** Stores the business; resolves it as stored (its creation time set). */
export function insertBusiness(
  manager: EntityManager,
  business: Pick<BusinessEntity, 'id' | 'name' | 'environment'>,
): Promise<BusinessEntity> {
  return manager.save(manager.create(BusinessEntity, business));
}

export async function insertApiKey(
  manager: EntityManager,
  key: Pick<ApiKeyEntity, 'keyPrefix' | 'hash' | 'businessId'> &
    Partial<Pick<ApiKeyEntity, 'scopes' | 'purpose'>>,
): Promise<void> {
  await manager.insert(ApiKeyEntity, key);
}

export function findBusiness(manager: EntityManager, businessId: string): Promise<BusinessEntity | null> {
  return manager.findOneBy(BusinessEntity, { id: businessId });
}

/**
 * The businesses, newest first, a page after `startingAfter` (a business id), and whether older ones follow; a cursor
 * naming no business answers an empty page.
 */
export async function listBusinesses(
  manager: EntityManager,
  page: { limit: number; startingAfter: string | null },
): Promise<{ businesses: BusinessEntity[]; hasMore: boolean }> {
  const rows = await newestFirstPage(
    manager.createQueryBuilder(BusinessEntity, 'business'),
    { time: 'created_at', tiebreak: 'id', publicId: 'id' },
    page,
  );
  return { businesses: rows?.rows ?? [], hasMore: rows?.hasMore ?? false };
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

/** The key of this prefix if it is neither revoked nor expired, with its business; null otherwise. */
export async function findActiveApiKey(
  manager: EntityManager,
  keyPrefix: string,
): Promise<ActiveApiKey | null> {
  const rows: Array<{
    hash: Buffer;
    business_id: string;
    name: string;
    environment: Environment;
    scopes: ApiKeyScope[] | null;
    expires_at: Date | null;
    purpose: ApiKeyPurpose;
  }> = await manager.query(
    `SELECT k.hash, k.business_id, b.name, b.environment, k.scopes, k.expires_at, k.purpose
       FROM api_keys k JOIN businesses b ON b.id = k.business_id
      WHERE k.key_prefix = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
    [keyPrefix],
  );
  const row = rows[0];
  return row
    ? {
        hash: row.hash,
        businessId: row.business_id,
        businessName: row.name,
        environment: row.environment,
        scopes: row.scopes,
        expiresAt: row.expires_at,
        purpose: row.purpose,
      }
    : null;
}

/** The key of this prefix, locked until the transaction ends (a roll waits for another roll of it); null if none. */
export async function lockApiKey(manager: EntityManager, keyPrefix: string): Promise<LockedApiKey | null> {
  return manager
    .createQueryBuilder(ApiKeyEntity, 'key')
    .setLock('pessimistic_write')
    .where('key.key_prefix = :keyPrefix', { keyPrefix })
    .getOne();
}

/** Marks the key rolled to `rolledTo`, expiring `overlapSeconds` from now; resolves that instant. */
export async function markApiKeyRolled(
  manager: EntityManager,
  keyPrefix: string,
  rolledTo: string,
  overlapSeconds: number,
): Promise<Date> {
  // An UPDATE answers its returned rows and its count.
  const [rows]: [Array<{ expires_at: Date }>, number] = await manager.query(
    `UPDATE api_keys SET rolled_to = $2, expires_at = now() + make_interval(secs => $3)
      WHERE key_prefix = $1 RETURNING expires_at`,
    [keyPrefix, rolledTo, overlapSeconds],
  );
  return rows[0]!.expires_at;
}

/** Marks the key as being for `purpose`; false when there is no key of that prefix. */
export async function markApiKeyPurpose(
  manager: EntityManager,
  keyPrefix: string,
  purpose: ApiKeyPurpose,
): Promise<boolean> {
  const [, count]: [unknown, number] = await manager.query(
    'UPDATE api_keys SET purpose = $2 WHERE key_prefix = $1',
    [keyPrefix, purpose],
  );
  return count > 0;
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
