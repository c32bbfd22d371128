import { RequestPacer } from '../src/clients/request-pacer';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { backoffMs, decoded, rateLimitPauseMs, retryAfterMs } from '../src/clients/retry-post';

const POLICY = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  timeoutMs: 1_000,
  rateLimitedMaxMs: 10_000,
};

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

describe('rate limits', () => {
  it('pause for the Retry-After the server gave, otherwise for at least half of a doubling ceiling', () => {
    expect(rateLimitPauseMs(0, POLICY, 3_000)).toBe(3_000);
    expect(rateLimitPauseMs(0, { ...POLICY, random: () => 0 }, null)).toBe(50);
    expect(rateLimitPauseMs(2, { ...POLICY, random: () => 0 }, null)).toBe(200);
    expect(rateLimitPauseMs(2, { ...POLICY, random: () => 0.999 }, null)).toBe(399);
    expect(rateLimitPauseMs(20, { ...POLICY, random: () => 0 }, null)).toBe(500);
  });

  it('halve the pace, which comes back to the budget as requests go through', () => {
    const pacer = new RequestPacer(4);
    pacer.rateLimited(0);
    pacer.rateLimited(0);
    expect(pacer.requestsPerSecond).toBe(1);
    for (let i = 0; i < 30; i++) pacer.succeeded();
    expect(pacer.requestsPerSecond).toBe(4);
    for (let i = 0; i < 20; i++) pacer.rateLimited(0);
    expect(pacer.requestsPerSecond).toBe(4 / 32);
  });

  it('space requests to the pace and hold every one back for a pause', async () => {
    let now = 0;
    const pacer = new RequestPacer(10, () => now);
    await pacer.turn();
    const waited = async () => {
      const started = Date.now();
      await pacer.turn();
      return Date.now() - started;
    };
    expect(await waited()).toBeGreaterThanOrEqual(90);
    now = 100;
    pacer.rateLimited(300);
    expect(await waited()).toBeGreaterThanOrEqual(290);
  });
});

describe('an answer in content codings', () => {
  const json = Buffer.from('{"jsonrpc":"2.0","result":1,"id":"1"}');

  test('is read back from gzip, deflate, br, several in order, or none', () => {
    expect(decoded(gzipSync(json), 'gzip')).toEqual(json);
    expect(decoded(deflateSync(json), 'deflate')).toEqual(json);
    expect(decoded(brotliCompressSync(json), 'br')).toEqual(json);
    expect(decoded(brotliCompressSync(gzipSync(json)), 'gzip, br')).toEqual(json);
    expect(decoded(json, null)).toEqual(json);
    expect(decoded(json, 'identity')).toEqual(json);
  });

  test('is refused in a coding it did not ask for', () => {
    expect(() => decoded(json, 'compress')).toThrow(/content coding not asked for: compress/);
  });
});
