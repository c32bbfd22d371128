export interface EndpointLimiter {
  /** Runs the task once its URL origin has a free slot; origins never wait on each other. */
  run<T>(url: string, task: () => Promise<T>): Promise<T>;
}

interface OriginSlots {
  active: number;
  waiting: Array<() => void>;
}

/** Keeps one slow receiver from taking every delivery slot of the dispatcher. */
export function createEndpointLimiter(maxConcurrentPerOrigin: number): EndpointLimiter {
  if (!Number.isInteger(maxConcurrentPerOrigin) || maxConcurrentPerOrigin < 1) {
    throw new Error('maxConcurrentPerOrigin must be a positive integer');
  }
  const slotsByOrigin = new Map<string, OriginSlots>();

  async function acquire(origin: string): Promise<OriginSlots> {
    const slots = slotsByOrigin.get(origin) ?? { active: 0, waiting: [] };
    slotsByOrigin.set(origin, slots);
    if (slots.active < maxConcurrentPerOrigin) {
      slots.active += 1;
    } else {
      await new Promise<void>((resolve) => slots.waiting.push(resolve));
    }
    return slots;
  }

  function release(origin: string, slots: OriginSlots): void {
    const next = slots.waiting.shift();
    if (next !== undefined) {
      next(); // the slot passes straight to the next waiter, so `active` stays the same
      return;
    }
    slots.active -= 1;
    if (slots.active === 0) {
      slotsByOrigin.delete(origin);
    }
  }

  return {
    async run<T>(url: string, task: () => Promise<T>): Promise<T> {
      const origin = new URL(url).origin;
      const slots = await acquire(origin);
      try {
        return await task();
      } finally {
        release(origin, slots);
      }
    },
  };
}
