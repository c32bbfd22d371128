import { randomBytes } from 'node:crypto';
import type { RequestOrigin } from '../domain/audit';
import { newId } from '../domain/ids';
import { operatorInvitationMail } from '../domain/mail-messages';
import { hashPassword, PASSWORD_SALT_BYTES } from '../domain/password';
import { findOperator, findUserByEmail, insertOperator, insertUser, membershipsOf } from '../persistence';
import { issueAccountLink, type AccountMailDeps } from './shared/account-mail';
import { recordAudit } from './shared/audit-trail';

export type InviteOperatorOutcome =
  { kind: 'invited'; userId: string } | { kind: 'refused'; reason: 'member' | 'already_operator' };

/**
 * Invites a person to operate the platform: their account (no password anyone knows until they set one through the
 * mailed link, which works once for 7 days) and its operator grant. An address of a business's member is refused (an
 * operator is nobody's member), so is an operator's who already set a password; one who has not yet gets a new link.
 * `invitedBy` is the operator who invites from the console, null for the `operator:invite` command (the first one).
 */
export async function inviteOperator(
  deps: AccountMailDeps,
  invitation: { email: string; invitedBy: { userId: string; email: string } | null },
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<InviteOperatorOutcome> {
  const unknownPassword = await hashPassword(
    randomBytes(32).toString('base64url'),
    randomBytes(PASSWORD_SALT_BYTES),
  );
  const outcome = await deps.dataSource.transaction(async (manager) => {
    const existing = await findUserByEmail(manager, invitation.email);
    if (existing && (await membershipsOf(manager, existing.id)).length > 0)
      return { kind: 'refused', reason: 'member' } as const;
    const operator = existing ? await findOperator(manager, existing.id) : null;
    if (existing && (!operator || existing.emailVerifiedAt))
      return { kind: 'refused', reason: operator ? 'already_operator' : 'member' } as const;
    const userId = existing?.id ?? newId('usr', randomBytes);
    if (!existing) {
      await insertUser(manager, { id: userId, email: invitation.email, passwordHash: unknownPassword });
      await insertOperator(manager, { userId, invitedBy: invitation.invitedBy?.userId ?? null });
    }
    const link = await issueAccountLink(deps, manager, userId, 'operator_invitation', now);
    await recordAudit(manager, {
      businessId: null,
      actor: invitation.invitedBy ?? { userId: null, email: null },
      action: 'operator_invited',
      target: invitation.email,
      origin,
    });
    return { kind: 'invited', userId, link } as const;
  });
  if (outcome.kind !== 'invited') return outcome;
  await deps.mailer.send(
    operatorInvitationMail(invitation.email, outcome.link, invitation.invitedBy?.email ?? null),
  );
  return { kind: 'invited', userId: outcome.userId };
}
