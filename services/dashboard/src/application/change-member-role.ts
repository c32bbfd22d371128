import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import type { Role } from '../domain/roles';
import { mayChangeRole, type TeamRefusal } from '../domain/team-rules';
import { lockTeam, setMemberRole } from '../persistence';
import { actorOf, recordAudit, type Actor } from './shared/audit-trail';

/**
 * Changes a member's role in the actor's business, on the team's rows locked: only who manages the team, owners'
 * matters by owners, and the business keeps at least one owner. A member of another business is not found.
 */
export async function changeMemberRole(
  dataSource: DataSource,
  actor: Actor,
  change: { userId: string; role: Role },
  origin: RequestOrigin,
): Promise<'changed' | 'not_found' | TeamRefusal> {
  return dataSource.transaction(async (manager) => {
    const team = await lockTeam(manager, actor.businessId);
    const target = team.find((member) => member.userId === change.userId);
    if (!target) return 'not_found';
    const owners = team.filter((member) => member.role === 'owner').length;
    const refusal = mayChangeRole(actor.role, target.role, change.role, owners);
    if (refusal) return refusal;
    await setMemberRole(manager, actor.businessId, target.userId, change.role);
    await recordAudit(manager, {
      businessId: actor.businessId,
      actor: actorOf(actor),
      action: 'member_role_changed',
      target: target.email,
      details: { from: target.role, to: change.role },
      origin,
    });
    return 'changed';
  });
}
