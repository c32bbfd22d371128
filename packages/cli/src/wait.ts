/** How often a command that waits for a status asks again. */
const POLL_INTERVAL_MS = 250;

/**
 * Asks again every POLL_INTERVAL_MS until the probe has an answer, or fails naming what it waited for. The probe may
 * throw to stop waiting for something that can no longer happen.
 */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/**
 * The record once its status is `wanted`; an error as soon as it is in a final status other than `wanted` (one that
 * `open` does not list), since it will not change again.
 */
export function untilStatus<T extends { status: string }>(
  what: string,
  read: () => Promise<T>,
  wanted: string,
  open: readonly string[],
  timeoutMs: number,
): Promise<T> {
  return poll(
    `${what} ${wanted}`,
    async () => {
      const record = await read();
      if (record.status === wanted) return record;
      if (!open.includes(record.status))
        throw new Error(`${what} is ${record.status}, a final status: it will not be ${wanted}`);
      return undefined;
    },
    timeoutMs,
  );
}
