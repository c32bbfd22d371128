import type Redis from 'ioredis';

/**
 * Wrong second-factor codes per person, in Redis (every replica counts together), counted and locked as failed
 * passwords are: past the failures allowed, no code is checked until the lock ends.
 */
export class SecondFactorAttemptStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(userId: string): string {
    return `${this.prefix}dashboard:second-factor-failures:${userId}`;
  }

  async failures(userId: string): Promise<number> {
    return Number((await this.redis.get(this.key(userId))) ?? 0);
  }

  /** Counts one more wrong code; the window (`windowSeconds`) starts at the first. */
  async recordFailure(userId: string, windowSeconds: number): Promise<number> {
    const key = this.key(userId);
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, windowSeconds, 'NX').exec()) as [
      [Error | null, number],
      [Error | null, number],
    ];
    return count;
  }

  /** Starts a lock of `seconds` from now (the count kept that long). */
  async lock(userId: string, seconds: number): Promise<void> {
    await this.redis.expire(this.key(userId), seconds);
  }

  async clearFailures(userId: string): Promise<void> {
    await this.redis.del(this.key(userId));
  }
}
