/**
 * When a failed message is tried again. The delay doubles with every failure from `baseDelayMs` up to
 * `maxDelayMs`, spread by ±`jitter` so messages that failed together do not come back together, and is then served by
 * one of a few fixed delay queues (`tiersMs`): RabbitMQ expires messages only at a queue's head, so each delay queue
 * holds one TTL and a short delay never waits behind a long one. A delay between two tiers picks one of them at
 * random, weighted so the expected delay is the computed one (the jitter survives the rounding).
 */
export interface RetrySchedule {
  /** The delay queues' TTLs, ascending. */
  tiersMs: readonly number[];
  /** The delay after the first failure. */
  baseDelayMs: number;
  /** The longest single delay. */
  maxDelayMs: number;
  /** Relative spread of each delay: 0.25 means ±25 %. */
  jitter: number;
  /** A transient failure is retried until this long after its first failure, then parked. */
  retryForMs: number;
}

/**
 * One hour of retries, at most two minutes apart: an outage of minutes strands nothing, and once it ends every
 * waiting message is handled within two minutes.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  tiersMs: [1_000, 5_000, 30_000, 120_000],
  baseDelayMs: 1_000,
  maxDelayMs: 120_000,
  jitter: 0.25,
  retryForMs: 3_600_000,
};

/** The delay queue (its TTL) for the retry after the `failures`-th failure (1 for the first). */
export function retryDelayMs(
  schedule: RetrySchedule,
  failures: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(schedule.maxDelayMs, schedule.baseDelayMs * 2 ** Math.max(0, failures - 1));
  const target = exponential * (1 + schedule.jitter * (2 * random() - 1));
  const tiers = schedule.tiersMs;
  const first = tiers[0]!;
  const last = tiers[tiers.length - 1]!;
  if (target <= first) return first;
  if (target >= last) return last;
  const upper = tiers.findIndex((tier) => tier >= target);
  const above = tiers[upper]!;
  const below = tiers[upper - 1]!;
  return random() < (target - below) / (above - below) ? above : below;
}
