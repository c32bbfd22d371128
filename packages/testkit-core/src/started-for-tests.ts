/** Anything a test starts and must close: a service test bed, a harness, a fixture. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * What `start` answers, started before the enclosing describe's tests and closed after them:
 * `const bed = startedForTheseTests(() => checkoutTestBed('checkout-list'))`. The answer stands for the started value,
 * reading and writing through to it (`bed.service = restarted` replaces the service `close` stops); it is there from
 * the describe's first hook on, not while the describe is being declared. `startTimeoutMs` replaces jest's timeout for
 * the start (a whole stack takes longer than a test).
 */
export function startedForTheseTests<T extends Closable>(
  start: () => Promise<T>,
  startTimeoutMs?: number,
): T {
  const lifetime = new Lifetime(start);
  beforeAll(() => lifetime.start(), startTimeoutMs);
  afterAll(() => lifetime.close());
  return lifetime.stand();
}

/** Like `startedForTheseTests`, but a fresh one for each test, closed after it. */
export function startedForEachTest<T extends Closable>(start: () => Promise<T>): T {
  const lifetime = new Lifetime(start);
  beforeEach(() => lifetime.start());
  afterEach(() => lifetime.close());
  return lifetime.stand();
}

class Lifetime<T extends Closable> {
  private started: T | undefined;

  constructor(private readonly make: () => Promise<T>) {}

  async start(): Promise<void> {
    this.started = await this.make();
  }

  /** Closes what started (nothing when starting failed: jest reports that failure). */
  async close(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    await started?.close();
  }

  stand(): T {
    const current = (): T => {
      if (!this.started) throw new Error('not started: read it inside a test or a hook, not while declaring');
      return this.started;
    };
    return new Proxy({} as T, {
      get: (_target, key) => Reflect.get(current(), key),
      set: (_target, key, value) => Reflect.set(current(), key, value),
      has: (_target, key) => Reflect.has(current(), key),
    });
  }
}
