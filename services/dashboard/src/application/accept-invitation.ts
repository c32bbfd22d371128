import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { newId } from '../domain/ids';
import { hashToken } from '../domain/one-time-token';
import { hashPassword, PASSWORD_SALT_BYTES, verifyPassword } from '../domain/password';
import {
  acceptInvitationOnce,
  findMembership,
  findOpenInvitation,
  findUserByEmail,
  insertMembership,
  insertUser,
  markEmailVerified,
  type InvitationEntity,
  type LoginAttemptStore,
} from '../persistence';
import { recordAudit } from './shared/audit-trail';

export type AcceptInvitationOutcome =
  | { kind: 'joined'; userId: string; businessId: string }
  | { kind: 'invalid' }
  | { kind: 'wrong_password' }
  | { kind: 'locked' };

/** The database, and the account lockout sign-in keeps: a password typed here counts there too. */
export interface AcceptInvitationDeps {
  dataSource: DataSource;
  attempts: LoginAttemptStore;
  maxFailures: number;
  lockSeconds: number;
}

/** The open invitation a link's token stands for, and whether its address already has an account. */
export async function openInvitation(
  dataSource: DataSource,
  token: string,
  now: Date = new Date(),
): Promise<{ invitation: InvitationEntity; hasAccount: boolean } | null> {
  const invitation = await findOpenInvitation(dataSource.manager, hashToken(token), now);
  if (!invitation) return null;
  return { invitation, hasAccount: (await findUserByEmail(dataSource.manager, invitation.email)) !== null };
}

/**
 * Accepts an invitation once, as its address: a new person creates their account with `password`; a person who has
 * one signs in with theirs. They join the business with the invited role, their address verified (the link was read
 * there). A used, revoked or expired invitation is refused; so is a wrong password, the invitation staying open.
 * An existing account's password is checked as sign-in checks it: a wrong one counts toward the account's lockout,
 * and a locked account is refused, its right password too; a right one clears the count.
 */
export async function acceptInvitation(
  deps: AcceptInvitationDeps,
  request: { token: string; password: string },
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<AcceptInvitationOutcome> {
  const { dataSource } = deps;
  const open = await openInvitation(dataSource, request.token, now);
  if (!open) return { kind: 'invalid' };
  const { invitation } = open;
  const existing = await findUserByEmail(dataSource.manager, invitation.email);
  if (existing) {
    if ((await deps.attempts.failures(invitation.email)) >= deps.maxFailures) return { kind: 'locked' };
    if (!(await verifyPassword(request.password, existing.passwordHash))) {
      const failures = await deps.attempts.recordFailure(invitation.email, deps.lockSeconds);
      if (failures >= deps.maxFailures) {
        await deps.attempts.lock(invitation.email, deps.lockSeconds);
        return { kind: 'locked' };
      }
      return { kind: 'wrong_password' };
    }
    await deps.attempts.clearFailures(invitation.email);
  }
  const newHash = existing ? null : await hashPassword(request.password, randomBytes(PASSWORD_SALT_BYTES));
  try {
    return await dataSource.transaction(async (manager) => {
      const userId = existing?.id ?? newId('usr', randomBytes);
      if (!existing)
        await insertUser(manager, { id: userId, email: invitation.email, passwordHash: newHash! });
      if (!(await acceptInvitationOnce(manager, invitation.id, userId, now))) throw new InvitationGone();
      if (!(await findMembership(manager, userId, invitation.businessId)))
        await insertMembership(manager, { userId, businessId: invitation.businessId, role: invitation.role });
      await markEmailVerified(manager, userId, now);
      await recordAudit(manager, {
        businessId: invitation.businessId,
        actor: { userId, email: invitation.email },
        action: 'invitation_accepted',
        target: invitation.email,
        details: { role: invitation.role },
        origin,
      });
      return { kind: 'joined', userId, businessId: invitation.businessId } as const;
    });
  } catch (err) {
    // Accepted, revoked or expired meanwhile; or the address signed up meanwhile (unique e-mail).
    if (err instanceof InvitationGone || (err as { code?: string }).code === '23505')
      return { kind: 'invalid' };
    throw err;
  }
}

class InvitationGone extends Error {}
