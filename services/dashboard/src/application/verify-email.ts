import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { hashToken } from '../domain/one-time-token';
import { findUser, markEmailVerified, useAccountToken } from '../persistence';
import { homeBusinessOf } from './shared/account-mail';
import { recordAudit } from './shared/audit-trail';

/** Uses a verification link's token once: the person's address is verified. An unknown, used or expired one is not. */
export async function verifyEmail(
  dataSource: DataSource,
  token: string,
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<'verified' | 'invalid'> {
  return dataSource.transaction(async (manager) => {
    const userId = await useAccountToken(manager, hashToken(token), 'verify_email', now);
    const user = userId ? await findUser(manager, userId) : null;
    if (!user) return 'invalid';
    await markEmailVerified(manager, user.id, now);
    await recordAudit(manager, {
      businessId: await homeBusinessOf(manager, user.id),
      actor: { userId: user.id, email: user.email },
      action: 'email_verified',
      target: user.email,
      origin,
    });
    return 'verified';
  });
}
