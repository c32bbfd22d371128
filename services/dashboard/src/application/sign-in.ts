import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { hashPassword, PASSWORD_SALT_BYTES, verifyPassword } from '../domain/password';
import { findUserByEmail, membershipsOf, type LoginAttemptStore } from '../persistence';

export interface SignInDeps {
  dataSource: DataSource;
  attempts: LoginAttemptStore;
  maxFailures: number;
  lockSeconds: number;
  attemptsPerMinute: number;
}

export type SignInOutcome =
  | { kind: 'signed_in'; userId: string; businessId: string }
  | { kind: 'wrong_credentials' }
  | { kind: 'locked' }
  | { kind: 'too_many_attempts' };

/** Compared against when no account has the address, so a wrong address costs what a wrong password does. */
let decoyHash: Promise<string> | undefined;

/**
 * Checks an e-mail address and password. A client address making too many attempts a minute is refused whatever it
 * sends; an account past `maxFailures` failed attempts is locked for `lockSeconds`, its right password refused too;
 * a success clears the count. A wrong address and a wrong password are one answer.
 */
export async function signIn(
  deps: SignInDeps,
  credentials: { email: string; password: string; clientAddress: string },
  now: Date = new Date(),
): Promise<SignInOutcome> {
  if ((await deps.attempts.countAttempt(credentials.clientAddress, now)) > deps.attemptsPerMinute)
    return { kind: 'too_many_attempts' };
  if ((await deps.attempts.failures(credentials.email)) >= deps.maxFailures) return { kind: 'locked' };
  const user = await findUserByEmail(deps.dataSource.manager, credentials.email);
  decoyHash ??= hashPassword('decoy password', randomBytes(PASSWORD_SALT_BYTES));
  const matches = await verifyPassword(credentials.password, user?.passwordHash ?? (await decoyHash));
  const membership = user && matches ? (await membershipsOf(deps.dataSource.manager, user.id))[0] : undefined;
  if (!user || !membership) {
    const failures = await deps.attempts.recordFailure(credentials.email, deps.lockSeconds);
    if (failures >= deps.maxFailures) {
      await deps.attempts.lock(credentials.email, deps.lockSeconds);
      return { kind: 'locked' };
    }
    return { kind: 'wrong_credentials' };
  }
  await deps.attempts.clearFailures(credentials.email);
  return { kind: 'signed_in', userId: user.id, businessId: membership.businessId };
}
