import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { hashToken } from '../domain/one-time-token';
import { hashPassword, PASSWORD_SALT_BYTES } from '../domain/password';
import {
  findUser,
  markEmailVerified,
  replacePassword,
  useAccountToken,
  voidAccountTokens,
} from '../persistence';
import { homeBusinessOf } from './shared/account-mail';
import { recordAudit } from './shared/audit-trail';

export type ResetPasswordOutcome =
  { kind: 'reset'; userId: string; email: string; businessId: string | null } | { kind: 'invalid' };

/**
 * Uses a reset link's token once and sets the new password. Every session of the person started before now ends
 * (their sign-ins are checked against the time the password changed), the other reset links stop working, and the
 * address counts as verified (the link was read there). An unknown, used or expired token changes nothing.
 */
export async function resetPassword(
  dataSource: DataSource,
  request: { token: string; password: string },
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<ResetPasswordOutcome> {
  const passwordHash = await hashPassword(request.password, randomBytes(PASSWORD_SALT_BYTES));
  return dataSource.transaction(async (manager) => {
    const userId = await useAccountToken(manager, hashToken(request.token), 'reset_password', now);
    const user = userId ? await findUser(manager, userId) : null;
    if (!user) return { kind: 'invalid' } as const;
    await replacePassword(manager, user.id, passwordHash, now);
    await voidAccountTokens(manager, user.id, 'reset_password', now);
    await markEmailVerified(manager, user.id, now);
    const businessId = await homeBusinessOf(manager, user.id);
    await recordAudit(manager, {
      businessId,
      actor: { userId: user.id, email: user.email },
      action: 'password_reset',
      target: user.email,
      origin,
    });
    return { kind: 'reset', userId: user.id, email: user.email, businessId } as const;
  });
}
