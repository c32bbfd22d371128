import { DEFAULT_RETRY_SCHEDULE, retryDelayMs, type RetrySchedule } from '../src';

const exact: RetrySchedule = { ...DEFAULT_RETRY_SCHEDULE, jitter: 0 };
const always = (value: number) => () => value;

describe('retry schedule', () => {
  test('by default a failing message is retried for at least 30 minutes', () => {
    expect(DEFAULT_RETRY_SCHEDULE.retryForMs).toBeGreaterThanOrEqual(30 * 60_000);
  });

  test('the delay doubles with every failure and stays at the longest delay queue', () => {
    const tiered = { ...exact, tiersMs: [1000, 2000, 4000, 8000], maxDelayMs: 8000 };
    expect([1, 2, 3, 4, 5, 20].map((failures) => retryDelayMs(tiered, failures))).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000,
    ]);
  });

  test('a delay between two delay queues goes to one of them, weighted so its expected delay is kept', () => {
    // The third delay, 4 s, lies three quarters of the way from the 1 s queue to the 5 s one.
    expect(retryDelayMs(exact, 3, always(0.74))).toBe(5000);
    expect(retryDelayMs(exact, 3, always(0.76))).toBe(1000);
  });

  test('jitter spreads messages that failed together over neighbouring delays, around the computed one', () => {
    const samples = Array.from({ length: 4000 }, () => retryDelayMs(DEFAULT_RETRY_SCHEDULE, 3));
    const mean = samples.reduce((sum, delay) => sum + delay, 0) / samples.length;
    expect(new Set(samples)).toEqual(new Set([1000, 5000]));
    expect(mean).toBeGreaterThan(3600);
    expect(mean).toBeLessThan(4400);
  });

  test('delays never go below the shortest delay queue nor above the longest', () => {
    for (let failures = 1; failures < 40; failures += 1) {
      const delay = retryDelayMs(DEFAULT_RETRY_SCHEDULE, failures);
      expect(DEFAULT_RETRY_SCHEDULE.tiersMs).toContain(delay);
    }
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 40, always(0))).toBe(120_000);
  });
});
