import { IsNull, type EntityManager } from 'typeorm';
import { PayoutAccountEntity } from './payout-account.entity';
import { RecoveryCodeEntity, SecondFactorEntity } from './second-factor.entity';

export function findSecondFactor(manager: EntityManager, userId: string): Promise<SecondFactorEntity | null> {
  return manager.findOneBy(SecondFactorEntity, { userId });
}

/**
 * A new enrolment waiting for its first code, replacing one not confirmed yet. False when the person's factor is
 * confirmed already (it is left as it is). Run in a transaction: the row is locked while it is decided.
 */
export async function saveUnconfirmedSecondFactor(
  manager: EntityManager,
  userId: string,
  sealedSecret: string,
): Promise<boolean> {
  const existing = await manager.findOne(SecondFactorEntity, {
    where: { userId },
    lock: { mode: 'pessimistic_write' },
  });
  if (existing?.confirmedAt) return false;
  await manager.upsert(
    SecondFactorEntity,
    { userId, sealedSecret, confirmedAt: null, lastUsedStep: null, createdAt: new Date() },
    ['userId'],
  );
  return true;
}

/**
 * Records that a code of `step` was accepted, only if no code of this step or a later one was before (one atomic
 * update: of two requests with one code, one wins). `confirming`: the enrolment's first code, which also confirms it
 * (and only an unconfirmed factor is confirmed). False: the code was used already, or the factor is not in that state.
 */
export async function useStep(
  manager: EntityManager,
  userId: string,
  step: number,
  confirming: boolean,
): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .update(SecondFactorEntity)
    .set({ lastUsedStep: String(step), ...(confirming ? { confirmedAt: () => 'now()' } : {}) })
    .where('user_id = :userId', { userId })
    .andWhere('(last_used_step IS NULL OR last_used_step < :step)', { step })
    .andWhere(confirming ? 'confirmed_at IS NULL' : 'confirmed_at IS NOT NULL')
    .execute();
  return result.affected === 1;
}

/** The person's recovery codes replaced by these (hashes only). */
export async function replaceRecoveryCodes(
  manager: EntityManager,
  userId: string,
  codeHashes: string[],
): Promise<void> {
  await manager.delete(RecoveryCodeEntity, { userId });
  await manager.insert(
    RecoveryCodeEntity,
    codeHashes.map((codeHash) => ({ userId, codeHash })),
  );
}

/** Marks a recovery code used, only if it is the person's and unused (atomic). False: no such unused code. */
export async function useRecoveryCode(
  manager: EntityManager,
  userId: string,
  codeHash: string,
): Promise<boolean> {
  const result = await manager.update(
    RecoveryCodeEntity,
    { userId, codeHash, usedAt: IsNull() },
    { usedAt: new Date() },
  );
  return result.affected === 1;
}

/** How many of the person's recovery codes are left. */
export function unusedRecoveryCodes(manager: EntityManager, userId: string): Promise<number> {
  return manager.countBy(RecoveryCodeEntity, { userId, usedAt: IsNull() });
}

export function findPayoutAccount(
  manager: EntityManager,
  businessId: string,
): Promise<PayoutAccountEntity | null> {
  return manager.findOneBy(PayoutAccountEntity, { businessId });
}

export async function savePayoutAccount(manager: EntityManager, account: PayoutAccountEntity): Promise<void> {
  await manager.upsert(PayoutAccountEntity, account, ['businessId']);
}
