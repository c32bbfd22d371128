import { sleep, testLogger, waitFor } from '@gateway/testkit';
import { PeriodicTask } from '../src';

const options = { name: 'test', intervalMs: 10_000, logger: testLogger() };

describe('PeriodicTask', () => {
  test('runs a pass at start, another at once when nudged, and none while it waits out the interval', async () => {
    let passes = 0;
    const task = new PeriodicTask(async () => void (passes += 1), options);
    task.start();
    await waitFor(() => passes === 1);
    await sleep(50);
    expect(passes).toBe(1);
    task.nudge();
    await waitFor(() => passes === 2);
    await task.stop();
  });

  test('a pass that reports more work runs again without waiting', async () => {
    let passes = 0;
    const task = new PeriodicTask(async () => (passes += 1) < 5, options);
    task.start();
    await waitFor(() => passes === 5, { timeoutMs: 1000 });
    await sleep(50);
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
    await sleep(250);
    await task.stop();
    expect(passes).toBeGreaterThanOrEqual(2);
    expect(passes).toBeLessThanOrEqual(4);
  });

  test('stop waits for the pass in progress', async () => {
    let finished = false;
    const task = new PeriodicTask(async () => {
      await sleep(100);
      finished = true;
    }, options);
    task.start();
    await sleep(10);
    await task.stop();
    expect(finished).toBe(true);
    expect(task.isRunning).toBe(false);
  });
});
