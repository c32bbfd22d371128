import type { Request, RequestHandler, Response } from 'express';
import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { counter, type Logger } from '@gateway/observability';

/**
 * rate-limiter-flexible counts in fixed windows (a counter with a TTL), which lets up to twice the limit through
 * across a window boundary. docs/adr/0017-rate-limits-and-input-bounds.md asks for a rolling minute, so this replaces the library's counting script
 * (its `customIncrTtlLuaScript` option) with a sliding-window log: one sorted-set entry per admitted request, scored
 * by Redis server time. Everything happens in one script, so it is atomic across replicas, and rejected requests
 * are not recorded (a client that backs off regains capacity as its oldest requests age out).
 * Returns what the library expects: {points consumed (limit + 1 when rejected), ms until the oldest entry leaves}.
 */
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local points = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2]) * 1000
local limit = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window_ms)
local used = redis.call('ZCARD', key)
local consumed = limit + points
if used + points <= limit then
  for i = 1, points do
    redis.call('ZADD', key, now, now .. ':' .. (used + i))
  end
  redis.call('PEXPIRE', key, window_ms)
  consumed = used + points
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset_ms = window_ms
if oldest[2] then reset_ms = tonumber(oldest[2]) + window_ms - now end
return {consumed, reset_ms}
`;

const rejections = counter(
  'api_gateway_rate_limited_requests_total',
  'Requests refused 429 RATE_LIMITED, by limit (api: per API key or IP on /v1; dashboard: per key of the merchant ' +
    'dashboard on /v1; admin and checkout: per IP)',
  ['limit'],
);

export interface RateLimit {
  /** Redis key namespace of this limit, e.g. `<REDIS_PREFIX>rl:api`. */
  keyPrefix: string;
  perMinute: number;
}

export function createRateLimiter(redis: Redis, limit: RateLimit): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: limit.keyPrefix,
    points: limit.perMinute,
    duration: 60,
    customIncrTtlLuaScript: SLIDING_WINDOW_SCRIPT,
    // Fail closed: with Redis unreachable nobody is counted, so nobody is served (no insurance limiter).
    rejectIfRedisNotReady: true,
  });
}

/** What every counted answer carries (docs/api.md#rate-limits); a 429 adds `Retry-After`. */
export const RATE_LIMIT_HEADERS = {
  limit: 'RateLimit-Limit',
  remaining: 'RateLimit-Remaining',
  reset: 'RateLimit-Reset',
} as const;

function setHeaders(res: Response, limit: number, state: RateLimiterRes): number {
  const resetSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  res.set({
    [RATE_LIMIT_HEADERS.limit]: String(limit),
    [RATE_LIMIT_HEADERS.remaining]: String(state.remainingPoints),
    [RATE_LIMIT_HEADERS.reset]: String(resetSeconds),
  });
  return resetSeconds;
}

/** Which limit counts a request: its metrics label, its limiter and its bucket in that limiter. */
export interface Counted {
  name: 'api' | 'dashboard' | 'admin' | 'checkout';
  limiter: RateLimiterRedis;
  key: string;
}

/**
 * Counts the request against the bucket `countOf` names; RATE_LIMITED when full, SERVICE_UNAVAILABLE without Redis.
 * The name labels its rejections in metrics.
 */
export function rateLimit(countOf: (req: Request, res: Response) => Counted, logger: Logger): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const { name, limiter, key } = countOf(req, res);
    let state: RateLimiterRes;
    try {
      state = await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const retryAfter = setHeaders(res, limiter.points, rejection);
        rejections.inc({ limit: name });
        throw new AppError('RATE_LIMITED', undefined, { 'Retry-After': String(retryAfter) });
      }
      logger.warn({ err: String(rejection) }, 'rate limiter unavailable');
      throw new AppError('SERVICE_UNAVAILABLE');
    }
    setHeaders(res, limiter.points, state);
    next();
  });
}
