import { createHash } from 'node:crypto';
import type Redis from 'ioredis';

/**
 * Failed sign-ins per e-mail address (under its SHA-256) and sign-in attempts per client address per minute, in Redis,
 * so every replica of the dashboard counts together.
 */
export class LoginAttemptStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private failuresKey(email: string): string {
    return `${this.prefix}dashboard:login-failures:${createHash('sha256').update(email).digest('hex')}`;
  }

  /** The failures counted for `email` in the current window. */
  async failures(email: string): Promise<number> {
    return Number((await this.redis.get(this.failuresKey(email))) ?? 0);
  }

  /** Counts one more failure; the window (`windowSeconds`) starts at the first. */
  async recordFailure(email: string, windowSeconds: number): Promise<number> {
    const key = this.failuresKey(email);
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec()) as [
      [Error | null, number],
      [Error | null, number],
    ];
    return count;
  }

  /** Starts a lock of `email` of `seconds` from now (the failure count kept that long). */
  async lock(email: string, seconds: number): Promise<void> {
    await this.redis.expire(this.failuresKey(email), seconds);
  }

  async clearFailures(email: string): Promise<void> {
    await this.redis.del(this.failuresKey(email));
  }

  /** Counts an attempt from `clientAddress` in this minute and answers how many it made in it. */
  async countAttempt(clientAddress: string, now: Date): Promise<number> {
    const minute = Math.floor(now.getTime() / 60_000);
    const key = `${this.prefix}dashboard:login-attempts:${clientAddress}:${minute}`;
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, 120).exec()) as [
      [Error | null, number],
      [Error | null, number],
    ];
    return count;
  }
}
