import type { DataSource } from 'typeorm';
import type { RequestOrigin } from '../domain/audit';
import { roleAllows } from '../domain/roles';
import { isTimeZoneChoice } from '../domain/time-zones';
import { setBusinessTimeZone } from '../persistence';
import { actorOf, recordAudit, type Actor } from './shared/audit-trail';

/**
 * Sets the zone the actor's business's dates are shown in (owners and admins; an IANA zone Intl knows), recording the
 * change with the zone it replaces in the audit log. Picking the zone already set changes and records nothing.
 */
export async function changeBusinessTimeZone(
  dataSource: DataSource,
  actor: Actor,
  timeZone: string,
  origin: RequestOrigin,
): Promise<'changed' | 'unchanged' | 'invalid' | 'not_allowed'> {
  if (!roleAllows(actor.role, 'business:write')) return 'not_allowed';
  if (!isTimeZoneChoice(timeZone)) return 'invalid';
  return dataSource.transaction(async (manager) => {
    const previous = await setBusinessTimeZone(manager, actor.businessId, timeZone);
    if (previous === timeZone) return 'unchanged';
    await recordAudit(manager, {
      businessId: actor.businessId,
      actor: actorOf(actor),
      action: 'business_time_zone_changed',
      target: timeZone,
      details: { previous: previous ?? '' },
      origin,
    });
    return 'changed';
  });
}
