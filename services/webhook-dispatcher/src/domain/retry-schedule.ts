/** Delays in ms before retry 1, 2, ...; the schedule is exhausted (dead-letter) after its last entry. */
export type RetrySchedule = readonly number[];

export interface NextAttemptOptions {
  /** Seconds the receiver asked for (Retry-After), if any. */
  retryAfterSeconds?: number;
  /** Uniform in [0, 1), like Math.random. */
  random: () => number;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const JITTER_RATIO = 0.2;
const HOUR_MS = UNIT_MS.h!;
/** A receiver must not park a delivery for longer than our longest default step. */
const MAX_RETRY_AFTER_MS = 6 * HOUR_MS;
const DEFAULT_STEPS = '5s,30s,2m,10m,30m,1h,3h,6h';
const DEFAULT_REPEAT_MS = 6 * HOUR_MS;
const DEFAULT_TOTAL_MS = 72 * HOUR_MS;

/** Parses `WEBHOOK_RETRY_SCHEDULE`, e.g. `1s,2s,4s` or `5s,30s,2m,10m`. Units: ms, s, m, h, d. */
export function parseRetrySchedule(text: string): RetrySchedule {
  return text.split(',').map((step) => parseDuration(step.trim()));
}

/** docs/adr/0009-webhook-delivery-and-signatures.md: 5s, 30s, 2m, 10m, 30m, 1h, 3h, 6h, then every 6h while the total stays within 3 days. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = extendUntil(
  parseRetrySchedule(DEFAULT_STEPS),
  DEFAULT_REPEAT_MS,
  DEFAULT_TOTAL_MS,
);

/**
 * Delay before the next attempt after `attemptNumber` attempts have failed (1 = the first attempt failed),
 * jittered by ±20% so retries of many deliveries do not arrive together, never shorter than Retry-After.
 * Null when the schedule is exhausted: the delivery is dead-lettered.
 */
export function nextAttemptDelay(
  attemptNumber: number,
  schedule: RetrySchedule,
  options: NextAttemptOptions,
): number | null {
  const base = schedule[attemptNumber - 1];
  if (base === undefined) {
    return null;
  }
  const jittered = Math.round(base * (1 + (options.random() * 2 - 1) * JITTER_RATIO));
  const requested = Math.min((options.retryAfterSeconds ?? 0) * 1_000, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, requested);
}

function parseDuration(step: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(step);
  const amount = Number(match?.[1]);
  const unitMs = match?.[2] === undefined ? undefined : UNIT_MS[match[2]];
  if (unitMs === undefined || !Number.isSafeInteger(amount) || amount <= 0) {
    throw new Error(`invalid retry delay "${step}": use a positive integer with ms, s, m, h or d`);
  }
  return amount * unitMs;
}

function extendUntil(steps: RetrySchedule, repeatMs: number, totalMs: number): RetrySchedule {
  const extended = [...steps];
  let total = extended.reduce((sum, delay) => sum + delay, 0);
  while (total + repeatMs <= totalMs) {
    extended.push(repeatMs);
    total += repeatMs;
  }
  return extended;
}
