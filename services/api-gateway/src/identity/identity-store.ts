import type { DataSource } from 'typeorm';
import type Redis from 'ioredis';
import { newPublicId } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import { newestFirstPage } from '@gateway/persistence';
import { digestsEqual, generateApiKey, hashApiKey, parseApiKey, type Environment } from '../domain/api-key';
import { ApiKeyEntity, BusinessEntity } from '../persistence';

/** Who a request acts for, once its API key checked out. */
export interface Identity {
  businessId: string;
  businessName: string;
  keyPrefix: string;
}

interface CachedKey {
  hash: string;
  business_id: string;
  business_name: string;
  environment: Environment;
}

/** A key lookup is cached this long at most, so a revoked key stops working on every replica within it. */
const KEY_CACHE_TTL_MS = 5000;
const UNKNOWN_KEY = 'unknown';

export interface NewBusiness {
  business: BusinessEntity;
  apiKey: string;
  keyPrefix: string;
}

/** Businesses and their API keys: issuing, revoking and checking keys (hash only stored, lookups cached briefly). */
export class IdentityStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: Redis,
    private readonly redisPrefix: string,
    private readonly environment: Environment,
    private readonly logger: Logger,
  ) {}

  /** The identity behind a presented key, or null when it is malformed, unknown, revoked or of another environment. */
  async authenticate(presented: string): Promise<Identity | null> {
    const parsed = parseApiKey(presented);
    if (!parsed || parsed.environment !== this.environment) return null;
    const stored = await this.lookUp(parsed.keyPrefix);
    if (!stored || stored.environment !== this.environment) return null;
    if (!digestsEqual(hashApiKey(presented), Buffer.from(stored.hash, 'hex'))) return null;
    return {
      businessId: stored.business_id,
      businessName: stored.business_name,
      keyPrefix: parsed.keyPrefix,
    };
  }

  async createBusiness(name: string): Promise<NewBusiness> {
    return this.dataSource.transaction(async (manager) => {
      const business = await manager.save(
        manager.create(BusinessEntity, { id: newPublicId('biz'), name, environment: this.environment }),
      );
      const issued = generateApiKey(this.environment);
      await manager.insert(ApiKeyEntity, {
        keyPrefix: issued.keyPrefix,
        hash: issued.hash,
        businessId: business.id,
      });
      return { business, apiKey: issued.apiKey, keyPrefix: issued.keyPrefix };
    });
  }

  async findBusiness(businessId: string): Promise<BusinessEntity | null> {
    return this.dataSource.manager.findOneBy(BusinessEntity, { id: businessId });
  }

  /** A business's newest keys, at most `limit`, and whether it has older ones. */
  async listKeys(businessId: string, limit: number): Promise<{ keys: ApiKeyEntity[]; hasMore: boolean }> {
    const keys = this.dataSource.manager
      .createQueryBuilder(ApiKeyEntity, 'key')
      .where('key.business_id = :businessId', { businessId });
    const page = await newestFirstPage(
      keys,
      { time: 'created_at', tiebreak: 'key_prefix', publicId: 'key_prefix' },
      { limit, startingAfter: null },
    );
    return { keys: page.rows, hasMore: page.hasMore };
  }

  /** A further key for rotation; older keys stay valid until revoked. */
  async issueKey(businessId: string): Promise<{ apiKey: string; keyPrefix: string }> {
    const issued = generateApiKey(this.environment);
    await this.dataSource.manager.insert(ApiKeyEntity, {
      keyPrefix: issued.keyPrefix,
      hash: issued.hash,
      businessId,
    });
    return { apiKey: issued.apiKey, keyPrefix: issued.keyPrefix };
  }

  /** Revokes a key (idempotently) and drops its cached lookup; false when no such key exists. */
  async revokeKey(keyPrefix: string): Promise<boolean> {
    const exists = await this.dataSource.manager.existsBy(ApiKeyEntity, { keyPrefix });
    if (!exists) return false;
    await this.dataSource.query(
      'UPDATE api_keys SET revoked_at = now() WHERE key_prefix = $1 AND revoked_at IS NULL',
      [keyPrefix],
    );
    // A replica that read the key just before the update may cache it once more: the TTL bounds that to 5 s.
    await this.redis.del(this.cacheKey(keyPrefix));
    return true;
  }

  private cacheKey(keyPrefix: string): string {
    return `${this.redisPrefix}api-key:${keyPrefix}`;
  }

  private async lookUp(keyPrefix: string): Promise<CachedKey | null> {
    const cached = await this.readCache(keyPrefix);
    if (cached !== undefined) return cached;
    const rows: Array<{ hash: Buffer; business_id: string; name: string; environment: Environment }> =
      await this.dataSource.query(
        `SELECT k.hash, k.business_id, b.name, b.environment
           FROM api_keys k JOIN businesses b ON b.id = k.business_id
          WHERE k.key_prefix = $1 AND k.revoked_at IS NULL`,
        [keyPrefix],
      );
    const row = rows[0];
    const found: CachedKey | null = row
      ? {
          hash: row.hash.toString('hex'),
          business_id: row.business_id,
          business_name: row.name,
          environment: row.environment,
        }
      : null;
    // Not awaited: a slow or absent cache must not delay the answer the database already gave.
    void this.redis
      .set(this.cacheKey(keyPrefix), found ? JSON.stringify(found) : UNKNOWN_KEY, 'PX', KEY_CACHE_TTL_MS)
      .catch((err: unknown) => this.logger.warn({ err: String(err) }, 'api key cache write failed'));
    return found;
  }

  /** undefined = not cached (or the cache is unreachable: the database answers instead). */
  private async readCache(keyPrefix: string): Promise<CachedKey | null | undefined> {
    try {
      const text = await this.redis.get(this.cacheKey(keyPrefix));
      if (text === null) return undefined;
      return text === UNKNOWN_KEY ? null : (JSON.parse(text) as CachedKey);
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'api key cache read failed');
      return undefined;
    }
  }
}
