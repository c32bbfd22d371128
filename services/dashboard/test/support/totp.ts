import { waitFor } from '@gateway/testkit';
import { totpCodeAt } from '../../src/domain/second-factor';

const STEP_MS = 30_000;

/**
 * A source of authenticator codes the server accepts now, for one test's people: each of a 30-second step later than
 * the last one it gave (the server accepts a step's code once, and only later steps after it), the current step's or
 * the next one's (the server accepts one step either side), the next one's only well inside the current step so the
 * server's clock is still within a step of it; it waits for the next step when both are spent.
 */
export function totpCodes(): (secret: string) => Promise<string> {
  let lastStep = 0;
  return async (secret) => {
    const step = await waitFor(
      async () => {
        const now = Date.now();
        const current = Math.floor(now / STEP_MS);
        const candidates = now % STEP_MS < STEP_MS - 3000 ? [current, current + 1] : [current];
        return candidates.find((candidate) => candidate > lastStep) ?? false;
      },
      { timeoutMs: 40_000, intervalMs: 250, what: 'a TOTP step not used yet' },
    );
    lastStep = step;
    return totpCodeAt(secret, new Date(step * STEP_MS + 1000));
  };
}
