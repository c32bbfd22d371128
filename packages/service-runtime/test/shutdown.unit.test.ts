import pino from 'pino';
import { runShutdown, ShutdownTimeoutError, stopLogger, type ShutdownStage } from '../src';

function capturingLogger(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('runShutdown', () => {
  test('runs the stages in order, one log line each with its duration and figures, then `stopped`', async () => {
    const { logger, lines } = capturingLogger();
    const ran: string[] = [];
    const stage = (name: string, figures?: Record<string, unknown>): ShutdownStage => ({
      name,
      run: async () => {
        ran.push(name);
        return figures;
      },
    });
    await runShutdown([stage('first'), stage('second', { published: 3 })], {
      timeoutMs: 1000,
      logger,
      abandon: async () => undefined,
    });
    expect(ran).toEqual(['first', 'second']);
    expect(lines.map((line) => line.msg)).toEqual(['stop: first', 'stop: second', 'stopped']);
    expect(lines[1]).toMatchObject({ stage: 'second', ms: expect.any(Number), published: 3 });
    expect(lines[2]).toMatchObject({ failedStages: [] });
  });

  test('a stage that fails is logged and the next ones still run', async () => {
    const { logger, lines } = capturingLogger();
    const ran: string[] = [];
    await runShutdown(
      [
        {
          name: 'flaky',
          run: async () => {
            throw new Error('database gone');
          },
        },
        { name: 'after', run: async () => void ran.push('after') },
      ],
      { timeoutMs: 1000, logger, abandon: async () => undefined },
    );
    expect(ran).toEqual(['after']);
    expect(lines.map((line) => line.msg)).toEqual(['stop: flaky failed', 'stop: after', 'stopped']);
    expect(lines[2]).toMatchObject({ failedStages: ['flaky'] });
  });

  test('past the bound: what the stage still runs is logged, `abandon` runs, it rejects, and no later stage starts even once that one ends', async () => {
    const { logger, lines } = capturingLogger();
    let abandoned = false;
    let laterStarted = false;
    let finishLate = () => undefined as void;
    const late = new Promise<void>((resolve) => {
      finishLate = resolve;
    });
    const stop = runShutdown(
      [
        { name: 'hanging', run: () => late, pending: () => ['payment.events: payment.created.v1 evt_1'] },
        { name: 'later', run: async () => void (laterStarted = true) },
      ],
      {
        timeoutMs: 50,
        logger,
        abandon: async () => {
          abandoned = true;
        },
      },
    );
    await expect(stop).rejects.toThrow(ShutdownTimeoutError);
    await expect(stop).rejects.toMatchObject({
      stage: 'hanging',
      stillRunning: ['payment.events: payment.created.v1 evt_1'],
    });
    expect(abandoned).toBe(true);
    finishLate();
    await late;
    // The stage loop goes on from `late` within this turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(laterStarted).toBe(false);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'stop ran out of time: abandoning what still runs',
        stage: 'hanging',
        timeoutMs: 50,
        stillRunning: ['payment.events: payment.created.v1 evt_1'],
      }),
    ]);
  });

  test('the last stage (the telemetry flush) runs outside the bound: slower than the bound, it does not turn a finished stop into one out of time', async () => {
    const { logger, lines } = capturingLogger();
    await runShutdown([{ name: 'quick', run: () => delay(10) }], {
      timeoutMs: 100,
      logger,
      abandon: async () => undefined,
      last: { name: 'telemetry flushed', run: () => delay(250) },
    });
    expect(lines.map((line) => line.msg)).toEqual(['stop: quick', 'stop: telemetry flushed', 'stopped']);
  });

  test('a stop out of time still runs the last stage, after abandoning, then rejects', async () => {
    const { logger, lines } = capturingLogger();
    const order: string[] = [];
    const stop = runShutdown([{ name: 'hanging', run: () => new Promise<void>(() => undefined) }], {
      timeoutMs: 50,
      logger,
      abandon: async () => void order.push('abandoned'),
      last: { name: 'telemetry flushed', run: async () => void order.push('flushed') },
    });
    await expect(stop).rejects.toThrow(ShutdownTimeoutError);
    expect(order).toEqual(['abandoned', 'flushed']);
    expect(lines.map((line) => line.msg)).toEqual([
      'stop ran out of time: abandoning what still runs',
      'stop: telemetry flushed',
    ]);
  });

  test('its lines are written at info even where LOG_LEVEL asks for warnings only, and not at all where it is silent', async () => {
    const warn = capturingLogger('warn');
    warn.logger.info('not a stop line');
    await runShutdown([{ name: 'only', run: async () => undefined }], {
      timeoutMs: 1000,
      logger: warn.logger,
      abandon: async () => undefined,
    });
    expect(warn.lines.map((line) => [line.msg, line.level])).toEqual([
      ['stop: only', 30],
      ['stopped', 30],
    ]);
    expect(stopLogger(warn.logger).isLevelEnabled('info')).toBe(true);
    expect(stopLogger(capturingLogger('silent').logger).isLevelEnabled('info')).toBe(false);
  });
});
