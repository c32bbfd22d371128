import type { EntityManager } from 'typeorm';
import type { AccountTokenPurpose } from '../domain/one-time-token';
import { AccountTokenEntity } from './account-token.entity';
import { UserEntity } from './user.entity';

export function insertAccountToken(
  manager: EntityManager,
  token: { tokenHash: string; purpose: AccountTokenPurpose; userId: string; expiresAt: Date },
): Promise<AccountTokenEntity> {
  return manager.save(manager.create(AccountTokenEntity, { ...token, usedAt: null }));
}

/**
 * Uses a token once: marks it used if it is of this purpose, unused and not expired at `now`, and answers its user id;
 * null otherwise (unknown, used, expired). One statement, so two concurrent uses cannot both succeed.
 */
export async function useAccountToken(
  manager: EntityManager,
  tokenHash: string,
  purpose: AccountTokenPurpose,
  now: Date,
): Promise<string | null> {
  const result = await manager
    .createQueryBuilder()
    .update(AccountTokenEntity)
    .set({ usedAt: now })
    .where('token_hash = :tokenHash AND purpose = :purpose AND used_at IS NULL AND expires_at > :now', {
      tokenHash,
      purpose,
      now,
    })
    .returning('user_id')
    .execute();
  const rows = result.raw as Array<{ user_id: string }>;
  return rows[0]?.user_id ?? null;
}

/** The user a usable token (unused, unexpired at `now`) of this purpose stands for, without using it. */
export async function peekAccountToken(
  manager: EntityManager,
  tokenHash: string,
  purpose: AccountTokenPurpose,
  now: Date,
): Promise<UserEntity | null> {
  const token = await manager.findOneBy(AccountTokenEntity, { tokenHash, purpose });
  if (!token || token.usedAt || token.expiresAt <= now) return null;
  return manager.findOneBy(UserEntity, { id: token.userId });
}

/** Marks every unused token of this purpose of the user used (a reset done voids the other reset links). */
export async function voidAccountTokens(
  manager: EntityManager,
  userId: string,
  purpose: AccountTokenPurpose,
  now: Date,
): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(AccountTokenEntity)
    .set({ usedAt: now })
    .where('user_id = :userId AND purpose = :purpose AND used_at IS NULL', { userId, purpose })
    .execute();
}

export async function markEmailVerified(manager: EntityManager, userId: string, now: Date): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(UserEntity)
    .set({ emailVerifiedAt: now })
    .where('id = :userId AND email_verified_at IS NULL', { userId })
    .execute();
}

export async function replacePassword(
  manager: EntityManager,
  userId: string,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await manager.update(UserEntity, { id: userId }, { passwordHash, passwordChangedAt: now });
}
