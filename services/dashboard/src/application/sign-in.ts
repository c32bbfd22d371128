import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { hashPassword, PASSWORD_SALT_BYTES, verifyPassword } from '../domain/password';
import { findOperator, findUserByEmail, membershipsOf, type LoginAttemptStore } from '../persistence';

export interface SignInDeps {
  dataSource: DataSource;
  attempts: LoginAttemptStore;
  maxFailures: number;
  lockSeconds: number;
  attemptsPerMinute: number;
}

export type SignInOutcome =
  | { kind: 'signed_in'; userId: string; businessId: string }
  | { kind: 'operator_signed_in'; userId: string }
  | { kind: 'wrong_credentials' }
  | { kind: 'locked' }
  | { kind: 'too_many_attempts' };

/** Compared against when no account has the address, so a wrong address costs what a wrong password does. */
let decoyHash: Promise<string> | undefined;

/**
 * Checks an e-mail address and password. A client address making too many attempts a minute is refused whatever it
 * sends; an account past `maxFailures` failed attempts is locked for `lockSeconds`, its right password refused too;
 * a success clears the count. A wrong address and a wrong password are one answer. A person with no business who is
 * an operator signs in as one.
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
  // An operator belongs to no business: the console (/operador) is theirs.
  const operator =
    user && matches && !membership ? await findOperator(deps.dataSource.manager, user.id) : null;
  if (!user || (!membership && !operator)) {
    const failures = await deps.attempts.recordFailure(credentials.email, deps.lockSeconds);
    if (failures >= deps.maxFailures) {
      await deps.attempts.lock(credentials.email, deps.lockSeconds);
      return { kind: 'locked' };
    }
    return { kind: 'wrong_credentials' };
  }
  await deps.attempts.clearFailures(credentials.email);
  if (!membership) return { kind: 'operator_signed_in', userId: user.id };
  return { kind: 'signed_in', userId: user.id, businessId: membership.businessId };
}
