import { fetch, type RequestInit, type Response } from 'undici';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  /** Injectable for tests; defaults to Math.random. */
  random?: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  timeoutMs: 10_000,
};

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

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

/** fetch that retries 429, 5xx, network errors and timeouts; the last failure is returned or thrown as is. */
export async function fetchWithRetry(url: string, init: RequestInit, policy: RetryPolicy): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const last = attempt + 1 >= policy.maxAttempts;
    let retryAfter: number | null = null;
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(policy.timeoutMs) });
      if (!isRetryableStatus(response.status) || last) return response;
      retryAfter = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
    } catch (err) {
      if (last) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, policy, retryAfter)));
  }
}
