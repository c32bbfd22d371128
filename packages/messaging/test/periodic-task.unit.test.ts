import { metricsRegistry } from '@gateway/observability';
import { testLogger } from '@gateway/testkit-core';
import { PeriodicTask } from '../src';

const options = { name: 'test', intervalMs: 10_000, logger: testLogger() };

/** Lets the task run what it can now, without moving the (fake) clock: what needs time stays waiting. */
const runWhatIsDue = () => jest.advanceTimersByTimeAsync(0);

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('runs a pass at start, another at once when nudged, and none while it waits out the interval', async () => {
    let passes = 0;
    const task = new PeriodicTask(async () => void (passes += 1), options);
    task.start();
    await runWhatIsDue();
    expect(passes).toBe(1);
    await jest.advanceTimersByTimeAsync(options.intervalMs - 1);
    expect(passes).toBe(1);
    task.nudge();
    await runWhatIsDue();
    expect(passes).toBe(2);
    await task.stop();
  });

  test('a pass that reports more work runs again without waiting', async () => {
    let passes = 0;
    const task = new PeriodicTask(async () => (passes += 1) < 5, options);
    task.start();
    await runWhatIsDue();
    expect(passes).toBe(5);
    await jest.advanceTimersByTimeAsync(options.intervalMs - 1);
    expect(passes).toBe(5);
    await task.stop();
  });

  test('a failing pass is retried after the interval, not in a tight loop', async () => {
    let passes = 0;
    const task = new PeriodicTask(
      async () => {
        passes += 1;
        throw new Error('database down');
      },
      { ...options, intervalMs: 100 },
    );
    task.start();
    await runWhatIsDue();
    expect(passes).toBe(1);
    await jest.advanceTimersByTimeAsync(99);
    expect(passes).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
    await jest.advanceTimersByTimeAsync(100);
    expect(passes).toBe(3);
    await task.stop();
  });

  test('stop waits for the pass in progress', async () => {
    let finishPass = (): void => undefined;
    let finished = false;
    const task = new PeriodicTask(async () => {
      await new Promise<void>((resolve) => (finishPass = resolve));
      finished = true;
    }, options);
    task.start();
    await runWhatIsDue();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await runWhatIsDue();
    expect(stopped).toBe(false);
    finishPass();
    await stopping;
    expect(finished).toBe(true);
    expect(task.isRunning).toBe(false);
  });

  test('counts each pass by task and outcome on the metrics an operator scrapes, both series at 0 from its start', async () => {
    const series = async (task: string): Promise<Record<string, number>> => {
      const metric = await metricsRegistry.getSingleMetric('periodic_task_passes_total')!.get();
      return Object.fromEntries(
        metric.values
          .filter((value) => value.labels.task === task)
          .map((value) => [String(value.labels.outcome), value.value]),
      );
    };
    let failing = true;
    let release = (): void => undefined;
    const task = new PeriodicTask(
      () =>
        new Promise<void>((resolve, reject) => {
          release = () => (failing ? reject(new Error('database down')) : resolve());
        }),
      { ...options, name: 'counted-task', intervalMs: 100 },
    );
    expect(await series('counted-task')).toEqual({});
    task.start();
    await runWhatIsDue();
    // Started, its first pass still running: both series are there, at 0.
    expect(await series('counted-task')).toEqual({ done: 0, failed: 0 });
    release();
    await runWhatIsDue();
    expect(await series('counted-task')).toEqual({ done: 0, failed: 1 });
    failing = false;
    await jest.advanceTimersByTimeAsync(100);
    release();
    await runWhatIsDue();
    expect(await series('counted-task')).toEqual({ done: 1, failed: 1 });
    const stopped = task.stop();
    release();
    await stopped;
  });
});
