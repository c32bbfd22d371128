import fc from 'fast-check';
import { DEFAULT_RETRY_SCHEDULE, nextAttemptDelay, parseRetrySchedule } from '../src/domain/retry-schedule';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const noJitter = (): number => 0.5;

describe('parseRetrySchedule', () => {
  it.each([
    ['1s,2s,4s', [SECOND, 2 * SECOND, 4 * SECOND]],
    [
      '5s,30s,2m,10m,30m,1h,3h,6h',
      [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR],
    ],
    ['250ms, 1d', [250, DAY]],
  ])('reads "%s"', (text, expected) => {
    expect(parseRetrySchedule(text)).toEqual(expected);
  });

  it.each(['', '1s,,2s', '0s', '-1s', '1.5s', '10', '5x', '1 s', 's', '1s;2s'])('refuses "%s"', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow(/invalid retry delay/);
  });
});

describe('DEFAULT_RETRY_SCHEDULE', () => {
  it('starts with the documented steps (ADR 0009) and then repeats every 6 h', () => {
    const steps = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR];
    expect(DEFAULT_RETRY_SCHEDULE.slice(0, steps.length)).toEqual(steps);
    expect(DEFAULT_RETRY_SCHEDULE.slice(steps.length).every((delay) => delay === 6 * HOUR)).toBe(true);
  });

  it('ends within 3 days of the first attempt, less than one 6 h step short of it', () => {
    const total = DEFAULT_RETRY_SCHEDULE.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeLessThanOrEqual(3 * DAY);
    expect(total + 6 * HOUR).toBeGreaterThan(3 * DAY);
  });
});

describe('nextAttemptDelay', () => {
  const schedule = parseRetrySchedule('1s,2s,4s');

  it('follows the schedule by attempt number and dead-letters after the last step', () => {
    expect(nextAttemptDelay(1, schedule, { random: noJitter })).toBe(SECOND);
    expect(nextAttemptDelay(2, schedule, { random: noJitter })).toBe(2 * SECOND);
    expect(nextAttemptDelay(3, schedule, { random: noJitter })).toBe(4 * SECOND);
    expect(nextAttemptDelay(4, schedule, { random: noJitter })).toBeNull();
  });

  it('dead-letters the default schedule after its last step', () => {
    const attempts = DEFAULT_RETRY_SCHEDULE.length;
    expect(nextAttemptDelay(attempts, DEFAULT_RETRY_SCHEDULE, { random: noJitter })).toBe(6 * HOUR);
    expect(nextAttemptDelay(attempts + 1, DEFAULT_RETRY_SCHEDULE, { random: noJitter })).toBeNull();
  });

  it('jitters every step within ±20%', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: DEFAULT_RETRY_SCHEDULE.length }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, random) => {
          const base = DEFAULT_RETRY_SCHEDULE[attempt - 1]!;
          const delay = nextAttemptDelay(attempt, DEFAULT_RETRY_SCHEDULE, { random: () => random })!;
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.2));
        },
      ),
    );
  });

  it('spreads delays across the jitter range rather than always using the base', () => {
    expect(nextAttemptDelay(1, schedule, { random: () => 0 })).toBe(800);
    expect(nextAttemptDelay(1, schedule, { random: () => 0.999999 })).toBe(1_200);
  });

  it('waits at least as long as Retry-After asks, and keeps the schedule when it asks for less', () => {
    expect(nextAttemptDelay(1, schedule, { random: noJitter, retryAfterSeconds: 30 })).toBe(30 * SECOND);
    expect(nextAttemptDelay(3, schedule, { random: noJitter, retryAfterSeconds: 1 })).toBe(4 * SECOND);
  });

  it('caps a huge Retry-After at 6 h', () => {
    expect(nextAttemptDelay(1, schedule, { random: noJitter, retryAfterSeconds: 365 * 86_400 })).toBe(
      6 * HOUR,
    );
  });

  it('still dead-letters an exhausted schedule when Retry-After is present', () => {
    expect(nextAttemptDelay(4, schedule, { random: noJitter, retryAfterSeconds: 5 })).toBeNull();
  });
});
