import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { roleAllows } from '../domain/roles';
import { revokeInvitationOf } from '../persistence';
import { actorOf, recordAudit, type Actor } from './shared/audit-trail';

/** Revokes one of the actor's business's open invitations: its link stops working. Another business's is not found. */
export async function revokeInvitation(
  dataSource: DataSource,
  actor: Actor,
  invitationId: string,
  origin: RequestOrigin,
  now: Date = new Date(),
): Promise<'revoked' | 'not_found' | 'not_allowed'> {
  if (!roleAllows(actor.role, 'team:write')) return 'not_allowed';
  return dataSource.transaction(async (manager) => {
    const revoked = await revokeInvitationOf(manager, actor.businessId, invitationId, now);
    if (!revoked) return 'not_found';
    await recordAudit(manager, {
      businessId: actor.businessId,
      actor: actorOf(actor),
      action: 'invitation_revoked',
      target: revoked.email,
      details: { role: revoked.role },
      origin,
    });
    return 'revoked';
  });
}
