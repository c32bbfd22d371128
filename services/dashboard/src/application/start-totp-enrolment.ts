import { randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '@gateway/persistence';
import { newTotpSecret, TOTP_SECRET_BYTES } from '../domain/second-factor';
import { findSecondFactor, saveUnconfirmedSecondFactor } from '../persistence';
import type { SecondFactorDeps } from './verify-second-factor';

/**
 * The secret of a person's enrolment in progress: the one already waiting for its first code (so reloading the page
 * shows the same), or a new one, sealed at rest. `enrolled` when the person has a confirmed factor already.
 */
export async function startTotpEnrolment(
  deps: Pick<SecondFactorDeps, 'dataSource' | 'sealKey'>,
  userId: string,
): Promise<{ kind: 'started'; secret: string } | { kind: 'enrolled' }> {
  return deps.dataSource.transaction(async (manager) => {
    const existing = await findSecondFactor(manager, userId);
    if (existing?.confirmedAt) return { kind: 'enrolled' };
    if (existing) return { kind: 'started', secret: openSecret(existing.sealedSecret, deps.sealKey) };
    const secret = newTotpSecret(randomBytes(TOTP_SECRET_BYTES));
    if (!(await saveUnconfirmedSecondFactor(manager, userId, sealSecret(secret, deps.sealKey))))
      return { kind: 'enrolled' };
    return { kind: 'started', secret };
  });
}
