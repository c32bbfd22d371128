import { randomBytes } from 'node:crypto';
import { openSecret } from '@gateway/persistence';
import { verifyPassword } from '../domain/password';
import {
  matchingStep,
  normaliseTotpCode,
  RECOVERY_CODE_BYTES,
  RECOVERY_CODE_COUNT,
  recoveryCodeFrom,
  recoveryCodeHash,
} from '../domain/second-factor';
import { findSecondFactor, findUser, replaceRecoveryCodes, useStep } from '../persistence';
import type { SecondFactorDeps } from './verify-second-factor';

export type ConfirmEnrolmentOutcome =
  | { kind: 'confirmed'; recoveryCodes: string[] }
  | { kind: 'wrong_code' }
  | { kind: 'wrong_password' }
  | { kind: 'locked' }
  | { kind: 'not_started' };

/**
 * The enrolment's first code, with the person's password: a session alone (a stolen one) cannot enrol an
 * authenticator of its own and then move money. A wrong password counts as a wrong code (and locks the same way). When
 * both are right, the factor is confirmed (that code's step recorded, so it is not accepted again) and the person gets
 * RECOVERY_CODE_COUNT recovery codes, answered this once and stored as hashes only.
 */
export async function confirmTotpEnrolment(
  deps: Pick<SecondFactorDeps, 'dataSource' | 'sealKey' | 'failures' | 'maxFailures' | 'lockSeconds'>,
  attempt: { userId: string; code: string; password: string },
  now: Date = new Date(),
): Promise<ConfirmEnrolmentOutcome> {
  if ((await deps.failures.failures(attempt.userId)) >= deps.maxFailures) return { kind: 'locked' };
  const user = await findUser(deps.dataSource.manager, attempt.userId);
  if (!user || !(await verifyPassword(attempt.password, user.passwordHash))) {
    const failures = await deps.failures.recordFailure(attempt.userId, deps.lockSeconds);
    if (failures < deps.maxFailures) return { kind: 'wrong_password' };
    await deps.failures.lock(attempt.userId, deps.lockSeconds);
    return { kind: 'locked' };
  }
  return deps.dataSource.transaction(async (manager) => {
    const factor = await findSecondFactor(manager, attempt.userId);
    if (!factor || factor.confirmedAt) return { kind: 'not_started' };
    const secret = openSecret(factor.sealedSecret, deps.sealKey);
    const code = normaliseTotpCode(attempt.code);
    const step = code ? matchingStep(secret, code, now) : null;
    if (step === null || !(await useStep(manager, attempt.userId, step, true))) return { kind: 'wrong_code' };
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
      recoveryCodeFrom(randomBytes(RECOVERY_CODE_BYTES)),
    );
    await replaceRecoveryCodes(manager, attempt.userId, recoveryCodes.map(recoveryCodeHash));
    return { kind: 'confirmed', recoveryCodes };
  });
}
