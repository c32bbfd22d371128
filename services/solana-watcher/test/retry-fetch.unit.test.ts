import { backoffMs, retryAfterMs } from '../src/chain/retry-fetch';

const POLICY = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, timeoutMs: 1_000 };

describe('retry backoff', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs(new Date(now + 5_000).toUTCString(), now)).toBe(5_000);
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
  });

  it('grows exponentially up to the cap, jittered below it', () => {
    expect(backoffMs(0, { ...POLICY, random: () => 0.999 }, null)).toBe(99);
    expect(backoffMs(3, { ...POLICY, random: () => 0.999 }, null)).toBe(799);
    expect(backoffMs(10, { ...POLICY, random: () => 0.999 }, null)).toBe(999);
    expect(backoffMs(10, { ...POLICY, random: () => 0 }, null)).toBe(0);
  });

  it('never retries sooner than the server asked', () => {
    expect(backoffMs(0, { ...POLICY, random: () => 0.5 }, 2_000)).toBe(2_000);
  });
});
