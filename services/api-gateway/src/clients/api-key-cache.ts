import type Redis from 'ioredis';
import type { ApiKeyScope } from '@gateway/contracts';
import type { Logger } from '@gateway/observability';
import type { ApiKeyPurpose, Environment } from '../domain/api-key';

/**
 * A key lookup as it is cached (JSON): the key's hash (hex), its business, its scopes (null: all) and when it expires
 * (ISO, null: never). Lookups cached by a version before scopes live under another cache key, never read here.
 */
export interface CachedKey {
  hash: string;
  business_id: string;
  business_name: string;
  environment: Environment;
  scopes?: ApiKeyScope[] | null;
  expires_at?: string | null;
  /** Absent in a lookup cached before keys had a purpose: `merchant`. */
  purpose?: ApiKeyPurpose;
}

/** A key lookup is cached this long at most, so a revoked key stops working on every replica within it. */
const KEY_CACHE_TTL_MS = 5000;
const UNKNOWN_KEY = 'unknown';

/**
 * API key lookups cached in Redis, shared by every replica: a found key, or that no such key exists. The cache only
 * spares the database: while Redis is unreachable, reads miss and writes are dropped.
 */
export class ApiKeyCache {
  constructor(
    private readonly redis: Redis,
    private readonly redisPrefix: string,
    private readonly logger: Logger,
  ) {}

  /** undefined = not cached (or the cache is unreachable: the database answers instead); null = no such key. */
  async read(keyPrefix: string): Promise<CachedKey | null | undefined> {
    try {
      const text = await this.redis.get(this.cacheKey(keyPrefix));
      if (text === null) return undefined;
      return text === UNKNOWN_KEY ? null : (JSON.parse(text) as CachedKey);
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'api key cache read failed');
      return undefined;
    }
  }

  /** Not awaited: a slow or absent cache must not delay the answer the database already gave. */
  write(keyPrefix: string, found: CachedKey | null): void {
    void this.redis
      .set(this.cacheKey(keyPrefix), found ? JSON.stringify(found) : UNKNOWN_KEY, 'PX', KEY_CACHE_TTL_MS)
      .catch((err: unknown) => this.logger.warn({ err: String(err) }, 'api key cache write failed'));
  }

  /**
   * Forgets a key's lookup after a revoke or a roll. Never fails the change that was committed: a cache out of reach
   * only means the old lookup lives out its time to live (`KEY_CACHE_TTL_MS`).
   */
  async drop(keyPrefix: string): Promise<void> {
    await this.redis
      .del(this.cacheKey(keyPrefix))
      .catch((err: unknown) => this.logger.warn({ err: String(err) }, 'api key cache drop failed'));
  }

  private cacheKey(keyPrefix: string): string {
    // v2: lookups carry scopes and expiry; a lookup an older replica cached (neither) is never read as full access.
    return `${this.redisPrefix}api-key:v2:${keyPrefix}`;
  }
}
