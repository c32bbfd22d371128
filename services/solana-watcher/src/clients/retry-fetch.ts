import { fetch, type RequestInit, type Response } from 'undici';
import { RequestPacer } from './request-pacer';

export interface RetryPolicy {
  /** Attempts for a server error (5xx), a network error or a timeout. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  /**
   * How long one request keeps being retried while the server answers 429: rate limits are waited out, they do not
   * use up `maxAttempts`. Past this the 429 is returned (the caller's pass fails; its progress is already saved).
   */
  rateLimitedMaxMs: number;
  /** Injectable for tests; defaults to Math.random. */
  random?: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  timeoutMs: 10_000,
  rateLimitedMaxMs: 120_000,
};

/** Retry-After in milliseconds, from seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Full-jitter exponential backoff; the server's Retry-After, when given, is a floor. */
export function backoffMs(attempt: number, policy: RetryPolicy, retryAfter: number | null): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = Math.floor((policy.random ?? Math.random)() * ceiling);
  return retryAfter === null ? jittered : Math.max(retryAfter, jittered);
}

/**
 * The pause after the n-th 429 in a row: the server's Retry-After when it gives one, otherwise exponential with
 * half-jitter (never near zero: the server just said it is over budget, retrying at once only spends more of it).
 */
export function rateLimitPauseMs(refusals: number, policy: RetryPolicy, retryAfter: number | null): number {
  if (retryAfter !== null) return retryAfter;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** refusals);
  return Math.floor(ceiling / 2 + ((policy.random ?? Math.random)() * ceiling) / 2);
}

/**
 * fetch paced by `pacer` that waits out 429s (Retry-After honoured, every request of the pacer held back meanwhile)
 * and retries 5xx, network errors and timeouts up to `maxAttempts`; the last failure is returned or thrown as is.
 */
export async function fetchWithRetry(
  url: string,
  init: RequestInit,
  policy: RetryPolicy,
  pacer: RequestPacer = new RequestPacer(Number.POSITIVE_INFINITY),
): Promise<Response> {
  const started = Date.now();
  let refusals = 0;
  for (let attempt = 0; ;) {
    await pacer.turn();
    const last = attempt + 1 >= policy.maxAttempts;
    let retryAfter: number | null = null;
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(policy.timeoutMs) });
      if (response.status === 429) {
        const pause = rateLimitPauseMs(refusals++, policy, retryAfterMs(response.headers.get('retry-after')));
        if (Date.now() + pause - started > policy.rateLimitedMaxMs) return response;
        pacer.rateLimited(pause);
        await response.body?.cancel();
        continue;
      }
      if (response.status < 500 || last) {
        if (response.status < 500) pacer.succeeded();
        return response;
      }
      retryAfter = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
    } catch (err) {
      if (last) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, policy, retryAfter)));
    attempt++;
  }
}
