import { randomBytes } from 'node:crypto';
import type { RequestOrigin } from '../domain/audit';
import { newId } from '../domain/ids';
import { invitationMail } from '../domain/mail-messages';
import { newOneTimeToken, TOKEN_LIFETIME_MS, tokenLink } from '../domain/one-time-token';
import type { Role } from '../domain/roles';
import { mayInvite, type TeamRefusal } from '../domain/team-rules';
import { findUser, insertInvitation, lockTeam } from '../persistence';
import type { AccountMailDeps } from './shared/account-mail';
import { actorOf, recordAudit, type Actor } from './shared/audit-trail';

export type InviteOutcome =
  | { kind: 'invited'; invitationId: string }
  | { kind: 'refused'; reason: TeamRefusal | 'unverified' | 'already_member' };

/**
 * Invites someone by e-mail to the actor's business with a role, mailing a link that works once for 7 days. Only who
 * manages the team invites, only an owner invites an owner, and only from a verified address (an unverified account
 * cannot make the dashboard mail strangers).
 */
export async function inviteMember(
  deps: AccountMailDeps & { businessName: string },
  actor: Actor,
  invitation: { email: string; role: Role },
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<InviteOutcome> {
  const refusal = mayInvite(actor.role, invitation.role);
  if (refusal) return { kind: 'refused', reason: refusal };
  const outcome = await deps.dataSource.transaction(async (manager) => {
    if (!(await findUser(manager, actor.userId))?.emailVerifiedAt)
      return { kind: 'refused', reason: 'unverified' } as const;
    const team = await lockTeam(manager, actor.businessId);
    if (team.some((member) => member.email === invitation.email))
      return { kind: 'refused', reason: 'already_member' } as const;
    const { token, hash } = newOneTimeToken(randomBytes);
    const id = newId('inv', randomBytes);
    await insertInvitation(manager, {
      id,
      businessId: actor.businessId,
      email: invitation.email,
      role: invitation.role,
      tokenHash: hash,
      invitedBy: actor.userId,
      expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_MS.invitation),
    });
    await recordAudit(manager, {
      businessId: actor.businessId,
      actor: actorOf(actor),
      action: 'invitation_sent',
      target: invitation.email,
      details: { role: invitation.role },
      origin,
    });
    return { kind: 'invited', invitationId: id, token } as const;
  });
  if (outcome.kind !== 'invited') return outcome;
  await deps.mailer.send(
    invitationMail(invitation.email, tokenLink(deps.publicUrl, '/convites/aceitar', outcome.token), {
      businessName: deps.businessName,
      role: invitation.role,
      invitedBy: actor.email,
    }),
  );
  return { kind: 'invited', invitationId: outcome.invitationId };
}
