import { createHash } from 'node:crypto';
import type Redis from 'ioredis';

/** What a session holds: the CSRF token always; the person and the business once signed in. */
export interface SessionData {
  csrfToken: string;
  userId?: string;
  businessId?: string;
  /** Signed in as an operator of the platform (no business): the console at /operador. */
  operator?: boolean;
  createdAt: string;
  /** Password checked, second factor awaited: who is signing in (not signed in yet); an operator has no business. */
  pendingSignIn?: { userId: string; businessId?: string; operator?: boolean; since: string };
}

/**
 * Sessions in Redis, each under the SHA-256 of its id (a copy of Redis holds no id a browser could present), living
 * `idleSeconds` past their last use.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleSeconds: number,
  ) {}

  private key(id: string): string {
    return `${this.prefix}dashboard:session:${createHash('sha256').update(id).digest('hex')}`;
  }

  async save(id: string, data: SessionData): Promise<void> {
    await this.redis.set(this.key(id), JSON.stringify(data), 'EX', this.idleSeconds);
  }

  /** The session and its idle time renewed, or null when it is unknown or expired. */
  async touch(id: string): Promise<SessionData | null> {
    const key = this.key(id);
    const [[, value]] = (await this.redis.multi().get(key).expire(key, this.idleSeconds).exec()) as [
      [Error | null, string | null],
      [Error | null, number],
    ];
    return value ? (JSON.parse(value) as SessionData) : null;
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }
}
