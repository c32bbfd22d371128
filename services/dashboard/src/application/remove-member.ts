import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { mayRemove, type TeamRefusal } from '../domain/team-rules';
import { deleteMembership, lockTeam } from '../persistence';
import { actorOf, recordAudit, type Actor } from './shared/audit-trail';

/**
 * Removes a member from the actor's business (their sessions in it end at their next request): only who manages the
 * team, an owner only by an owner, and never the last owner. A member of another business is not found.
 */
export async function removeMember(
  dataSource: DataSource,
  actor: Actor,
  userId: string,
  origin: RequestOrigin,
): Promise<'removed' | 'not_found' | TeamRefusal> {
  return dataSource.transaction(async (manager) => {
    const team = await lockTeam(manager, actor.businessId);
    const target = team.find((member) => member.userId === userId);
    if (!target) return 'not_found';
    const refusal = mayRemove(actor.role, target.role, team.filter((m) => m.role === 'owner').length);
    if (refusal) return refusal;
    await deleteMembership(manager, actor.businessId, target.userId);
    await recordAudit(manager, {
      businessId: actor.businessId,
      actor: actorOf(actor),
      action: 'member_removed',
      target: target.email,
      details: { role: target.role },
      origin,
    });
    return 'removed';
  });
}
