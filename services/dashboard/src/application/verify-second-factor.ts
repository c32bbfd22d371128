import type { DataSource } from 'typeorm';
import { openSecret } from '@gateway/persistence';
import {
  matchingStep,
  normaliseRecoveryCode,
  normaliseTotpCode,
  recoveryCodeHash,
} from '../domain/second-factor';
import {
  findSecondFactor,
  useRecoveryCode,
  useStep,
  type LoginAttemptStore,
  type SecondFactorAttemptStore,
} from '../persistence';

export interface SecondFactorDeps {
  dataSource: DataSource;
  /** DASHBOARD_SEAL_KEY: the authenticators' secrets are sealed under it. */
  sealKey: Buffer;
  failures: SecondFactorAttemptStore;
  /** The per-client-address limit sign-ins count against; codes count against it too. */
  attempts: LoginAttemptStore;
  attemptsPerMinute: number;
  maxFailures: number;
  lockSeconds: number;
}

export type SecondFactorOutcome =
  | { kind: 'accepted'; with: 'code' | 'recovery_code' }
  | { kind: 'not_enrolled' }
  | { kind: 'wrong_code' }
  | { kind: 'locked' }
  | { kind: 'too_many_attempts' };

/**
 * Checks a person's second factor: a code of their authenticator, accepted once (its step is recorded, and a code of
 * that step or an earlier one is refused afterwards: no replay), or, where `recovery` allows it, one of their unused
 * recovery codes. Wrong and replayed codes count as failures, as wrong passwords do: past `maxFailures` the person is
 * locked for `lockSeconds`, the right code refused too; a client address is limited to `attemptsPerMinute` tries.
 */
export async function verifySecondFactor(
  deps: SecondFactorDeps,
  attempt: { userId: string; code: string; clientAddress: string; recovery: boolean },
  now: Date = new Date(),
): Promise<SecondFactorOutcome> {
  const manager = deps.dataSource.manager;
  const factor = await findSecondFactor(manager, attempt.userId);
  if (!factor?.confirmedAt) return { kind: 'not_enrolled' };
  if ((await deps.attempts.countAttempt(attempt.clientAddress, now)) > deps.attemptsPerMinute)
    return { kind: 'too_many_attempts' };
  if ((await deps.failures.failures(attempt.userId)) >= deps.maxFailures) return { kind: 'locked' };

  const code = normaliseTotpCode(attempt.code);
  let accepted: SecondFactorOutcome | null = null;
  if (code) {
    const step = matchingStep(openSecret(factor.sealedSecret, deps.sealKey), code, now);
    if (step !== null && (await useStep(manager, attempt.userId, step, false)))
      accepted = { kind: 'accepted', with: 'code' };
  } else if (attempt.recovery && normaliseRecoveryCode(attempt.code)) {
    if (await useRecoveryCode(manager, attempt.userId, recoveryCodeHash(attempt.code)))
      accepted = { kind: 'accepted', with: 'recovery_code' };
  }
  if (accepted) {
    await deps.failures.clearFailures(attempt.userId);
    return accepted;
  }
  const failures = await deps.failures.recordFailure(attempt.userId, deps.lockSeconds);
  if (failures >= deps.maxFailures) {
    await deps.failures.lock(attempt.userId, deps.lockSeconds);
    return { kind: 'locked' };
  }
  return { kind: 'wrong_code' };
}

/** Whether the person has a confirmed second factor. */
export async function hasSecondFactor(dataSource: DataSource, userId: string): Promise<boolean> {
  return !!(await findSecondFactor(dataSource.manager, userId))?.confirmedAt;
}
