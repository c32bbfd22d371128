import pino from 'pino';
import { runShutdown, ShutdownTimeoutError, type ShutdownStage } from '../src';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

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
});
