import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { hashToken } from '../domain/one-time-token';
import { hashPassword, PASSWORD_SALT_BYTES } from '../domain/password';
import {
  findOperator,
  findUser,
  markEmailVerified,
  replacePassword,
  useAccountToken,
  voidAccountTokens,
} from '../persistence';
import { recordAudit } from './shared/audit-trail';

export type AcceptOperatorInvitationOutcome =
  { kind: 'accepted'; userId: string; email: string } | { kind: 'invalid' };

/**
 * Uses an operator's invitation link once and sets the password it asks for; the address counts as verified (the
 * link was read there) and the person's other invitation links stop working. An unknown, used or expired link, or
 * one whose person is no operator, changes nothing.
 */
export async function acceptOperatorInvitation(
  dataSource: DataSource,
  request: { token: string; password: string },
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<AcceptOperatorInvitationOutcome> {
  const passwordHash = await hashPassword(request.password, randomBytes(PASSWORD_SALT_BYTES));
  return dataSource.transaction(async (manager) => {
    const userId = await useAccountToken(manager, hashToken(request.token), 'operator_invitation', now);
    const user = userId ? await findUser(manager, userId) : null;
    if (!user || !(await findOperator(manager, user.id))) return { kind: 'invalid' } as const;
    await replacePassword(manager, user.id, passwordHash, now);
    await voidAccountTokens(manager, user.id, 'operator_invitation', now);
    await markEmailVerified(manager, user.id, now);
    await recordAudit(manager, {
      businessId: null,
      actor: { userId: user.id, email: user.email },
      action: 'operator_invitation_accepted',
      target: user.email,
      origin,
    });
    return { kind: 'accepted', userId: user.id, email: user.email } as const;
  });
}
