import Redis from 'ioredis';
import type { Logger } from '@gateway/observability';

/**
 * A Redis client that fails fast: no offline queue, a short connect timeout and a command timeout, so with Redis down
 * or hung a request gets its 503 within a second instead of hanging; it keeps reconnecting in the background.
 */
export function createRedisClient(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    connectTimeout: 1000,
    commandTimeout: 1000,
    // Bounds how long a closing client waits for a socket that may already be gone (keeps shutdown prompt).
    disconnectTimeout: 200,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2000),
  });
  let lastError = '';
  redis.on('error', (err: Error) => {
    // Every reconnect attempt fails the same way while Redis is down: log each distinct problem once.
    if (err.message !== lastError) logger.warn({ err: err.message }, 'redis error');
    lastError = err.message;
  });
  redis.on('ready', () => {
    lastError = '';
  });
  return redis;
}

/** Resolves when the client is ready or after `timeoutMs`, whichever comes first (readiness reports the rest). */
export function whenReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
  });
}
