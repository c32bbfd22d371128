import { waitFor } from '@gateway/testkit';
import { totpCodeAt } from '../../src/domain/second-factor';

const STEP_MS = 30_000;

/**
 * Forgets the step a person's last code was accepted for (`dashboard.second_factors.last_used_step`), so the server
 * takes a code of the current step again: a test that needs many codes of one person in a row uses it instead of
 * waiting up to 30 seconds for each next step. Every code is still checked by the server; a test of the replay guard
 * itself sends its replayed code without asking for a fresh one in between, so nothing is forgotten there.
 */
export type ForgetLastStep = (secret: string) => Promise<void>;

/**
 * A source of authenticator codes the server accepts now, for one test's people: each of a 30-second step later than
 * the last one it gave (the server accepts a step's code once, and only later steps after it), the current step's or
 * the next one's (the server accepts one step either side), the next one's only well inside the current step so the
 * server's clock is still within a step of it. When both are spent it forgets the last step (`forget`) if given, else
 * waits for the next step.
 */
export function totpCodes(forget?: ForgetLastStep): (secret: string) => Promise<string> {
  let lastStep = 0;
  const freeStep = () => {
    const now = Date.now();
    const current = Math.floor(now / STEP_MS);
    const candidates = now % STEP_MS < STEP_MS - 3000 ? [current, current + 1] : [current];
    return candidates.find((candidate) => candidate > lastStep) ?? false;
  };
  return async (secret) => {
    if (forget && freeStep() === false) {
      await forget(secret);
      lastStep = 0;
    }
    const step = await waitFor(async () => freeStep(), {
      timeoutMs: 40_000,
      intervalMs: 250,
      what: 'a TOTP step not used yet',
    });
    lastStep = step;
    return totpCodeAt(secret, new Date(step * STEP_MS + 1000));
  };
}

/** `ForgetLastStep` for the person signed up with `email`, through a connection to the stack's database. */
export function forgetLastStepOf(
  database: { query(sql: string, parameters: unknown[]): Promise<unknown> },
  email: string,
): ForgetLastStep {
  return async () => {
    await database.query(
      `UPDATE dashboard.second_factors SET last_used_step = NULL
        WHERE user_id = (SELECT id FROM dashboard.users WHERE email = $1)`,
      [email],
    );
  };
}
