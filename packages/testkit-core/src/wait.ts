/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
  );
}

/**
 * Lets `ms` pass on purpose, as part of what a test simulates: a slow stub answering late, a fault held for a while,
 * a load's pacing. Never to wait for an effect: `waitFor` its condition, or prove that what would have caused it has
 * been handled before asserting that it did not happen.
 */
export const letTimePass = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
