import type { Logger } from '@gateway/observability';

/** A stop that did not finish within its bound: what was still running then. */
export class ShutdownTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly stage: string,
    readonly stillRunning: string[],
  ) {
    super(`stop did not finish within ${timeoutMs} ms, at "${stage}": ${stillRunning.join('; ') || '-'}`);
    this.name = 'ShutdownTimeoutError';
  }
}

/** One stage of a stop. */
export interface ShutdownStage {
  /** Its log line, e.g. `work in flight finished`. */
  name: string;
  /** Resolves with figures for its log line. */
  run(): Promise<Record<string, unknown> | void>;
  /** What of this stage is still running, for the log of a stop out of time. */
  pending?(): string[];
}

export interface ShutdownOptions {
  timeoutMs: number;
  logger: Logger;
  /** Run when the bound is reached: drop what still holds work (the broker then redelivers it), quickly. */
  abandon(): Promise<void>;
  /**
   * Runs after the other stages, whether they finished or ran out of time, outside `timeoutMs` (it bounds itself): the
   * telemetry flush, which must neither eat the stages' time nor turn a stop that finished into one out of time.
   */
  last?: ShutdownStage;
}

/**
 * The logger of a stop's lines: at info even where LOG_LEVEL asks for warnings only (a stop happens once in a process's
 * life and its few lines say what it finished or handed back); none where LOG_LEVEL is `silent`.
 */
export function stopLogger(logger: Logger): Logger {
  return logger.isLevelEnabled('info') || logger.level === 'silent'
    ? logger
    : logger.child({}, { level: 'info' });
}

/** How long `abandon` gets before the stop gives up on it too. */
const ABANDON_MS = 2000;

/**
 * Runs a stop's stages in order, one log line each with its duration. A stage that fails is logged and the next one
 * runs (closing the rest still matters). Past `timeoutMs` the stop is abandoned: what still runs is logged, `abandon`
 * runs, no further stage starts, and it rejects with ShutdownTimeoutError (after `last`, which runs either way).
 */
export async function runShutdown(stages: ShutdownStage[], options: ShutdownOptions): Promise<void> {
  const { timeoutMs } = options;
  const logger = stopLogger(options.logger);
  const started = Date.now();
  let abandoned = false;
  let current: ShutdownStage | undefined;
  const failed: string[] = [];
  /** Runs one stage and logs how it went, unless the stop was abandoned meanwhile (`bounded`: it counts toward it). */
  const runStage = async (stage: ShutdownStage, bounded: boolean): Promise<void> => {
    const stageStarted = Date.now();
    try {
      const figures = await stage.run();
      if (bounded && abandoned) return;
      logger.info({ stage: stage.name, ms: Date.now() - stageStarted, ...figures }, `stop: ${stage.name}`);
    } catch (err) {
      if (bounded && abandoned) return;
      failed.push(stage.name);
      logger.warn({ stage: stage.name, ms: Date.now() - stageStarted, err }, `stop: ${stage.name} failed`);
    }
  };
  const run = async (): Promise<void> => {
    for (const stage of stages) {
      if (abandoned) return;
      current = stage;
      await runStage(stage, true);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<'out of time'>((resolve) => {
    timer = setTimeout(() => resolve('out of time'), timeoutMs);
  });
  const outcome = await Promise.race([run(), outOfTime]);
  clearTimeout(timer);
  if (outcome !== 'out of time') {
    if (options.last) await runStage(options.last, false);
    logger.info({ ms: Date.now() - started, failedStages: failed }, 'stopped');
    return;
  }
  abandoned = true;
  const stage = current?.name ?? '-';
  const stillRunning = current?.pending?.() ?? [];
  logger.error({ timeoutMs, stage, stillRunning }, 'stop ran out of time: abandoning what still runs');
  await Promise.race([
    options.abandon().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, ABANDON_MS).unref()),
  ]);
  if (options.last) await runStage(options.last, false);
  throw new ShutdownTimeoutError(timeoutMs, stage, stillRunning);
}
