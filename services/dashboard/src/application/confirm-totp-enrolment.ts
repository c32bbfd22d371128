import { randomBytes } from 'node:crypto';
import { openSecret } from '@gateway/persistence';
import {
  matchingStep,
  normaliseTotpCode,
  RECOVERY_CODE_BYTES,
  RECOVERY_CODE_COUNT,
  recoveryCodeFrom,
  recoveryCodeHash,
} from '../domain/second-factor';
import { findSecondFactor, replaceRecoveryCodes, useStep } from '../persistence';
import type { EnrolmentDeps } from './start-totp-enrolment';

export type ConfirmEnrolmentOutcome =
  | { kind: 'confirmed'; recoveryCodes: string[] }
  | { kind: 'wrong_code'; secret: string }
  | { kind: 'not_started' };

/**
 * The enrolment's first code: when it matches the secret waiting for it, the factor is confirmed (that code's step
 * recorded, so it is not accepted again) and the person gets RECOVERY_CODE_COUNT recovery codes, answered this once and
 * stored as hashes only.
 */
export async function confirmTotpEnrolment(
  deps: EnrolmentDeps,
  attempt: { userId: string; code: string },
  now: Date = new Date(),
): Promise<ConfirmEnrolmentOutcome> {
  return deps.dataSource.transaction(async (manager) => {
    const factor = await findSecondFactor(manager, attempt.userId);
    if (!factor || factor.confirmedAt) return { kind: 'not_started' };
    const secret = openSecret(factor.sealedSecret, deps.sealKey);
    const code = normaliseTotpCode(attempt.code);
    const step = code ? matchingStep(secret, code, now) : null;
    if (step === null || !(await useStep(manager, attempt.userId, step, true)))
      return { kind: 'wrong_code', secret };
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
      recoveryCodeFrom(randomBytes(RECOVERY_CODE_BYTES)),
    );
    await replaceRecoveryCodes(manager, attempt.userId, recoveryCodes.map(recoveryCodeHash));
    return { kind: 'confirmed', recoveryCodes };
  });
}
