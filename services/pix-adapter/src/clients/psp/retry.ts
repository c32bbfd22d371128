import { PspError } from './psp-error';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1); injected so tests can pin the jitter. */
  random: () => number;
}

/** Runs `attempt` again on PSP unavailability (5xx, 429, network) with full-jitter exponential backoff. */
export async function withRetry<T>(policy: RetryPolicy, attempt: () => Promise<T>): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof PspError) || !error.retryable || retry >= policy.maxRetries) throw error;
      await policy.sleep(delayFor(policy, retry, error.extra.retryAfterMs));
    }
  }
}

function delayFor(policy: RetryPolicy, retry: number, retryAfterMs: number | undefined): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  const jittered = Math.floor(policy.random() * backoff);
  // Retry-After is a floor (sooner only earns another 429), capped so one call never stalls past maxDelayMs.
  return retryAfterMs === undefined
    ? jittered
    : Math.min(policy.maxDelayMs, Math.max(retryAfterMs, jittered));
}
