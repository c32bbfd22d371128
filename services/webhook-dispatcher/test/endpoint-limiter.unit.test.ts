import { createEndpointLimiter } from '../src/clients/endpoint-limiter';

interface Gate {
  promise: Promise<void>;
  open: () => void;
}

function gate(): Gate {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('endpoint limiter', () => {
  it('runs at most the configured number of deliveries per origin at once', async () => {
    const limiter = createEndpointLimiter(2);
    const blocker = gate();
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running += 1;
      peak = Math.max(peak, running);
      await blocker.promise;
      running -= 1;
    };
    const all = Promise.all([1, 2, 3, 4, 5].map((n) => limiter.run(`https://slow.example/hook/${n}`, task)));
    await flush();
    expect(running).toBe(2);
    blocker.open();
    await all;
    expect(peak).toBe(2);
  });

  it('lets another origin run while one origin has all its slots taken', async () => {
    const limiter = createEndpointLimiter(1);
    const blocker = gate();
    const slow = limiter.run('https://slow.example/a', () => blocker.promise);
    const queued = jest.fn(async () => 'queued');
    const queuedRun = limiter.run('https://slow.example/b', queued);
    await expect(limiter.run('https://fast.example/a', async () => 'fast')).resolves.toBe('fast');
    expect(queued).not.toHaveBeenCalled();
    blocker.open();
    await slow;
    await expect(queuedRun).resolves.toBe('queued');
  });

  it('treats a different port or scheme as a different origin', async () => {
    const limiter = createEndpointLimiter(1);
    const blocker = gate();
    const slow = limiter.run('https://host.example/a', () => blocker.promise);
    await expect(limiter.run('https://host.example:8443/a', async () => 'other port')).resolves.toBe(
      'other port',
    );
    blocker.open();
    await slow;
  });

  it('frees the slot when a task fails', async () => {
    const limiter = createEndpointLimiter(1);
    await expect(limiter.run('https://x.example', () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    await expect(limiter.run('https://x.example', async () => 'next')).resolves.toBe('next');
  });

  it('refuses a limit below 1', () => {
    expect(() => createEndpointLimiter(0)).toThrow();
    expect(() => createEndpointLimiter(1.5)).toThrow();
  });
});
