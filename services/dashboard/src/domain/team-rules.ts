import { roleAllows, type Role } from './roles';

/** Why a change of the team is refused. */
export type TeamRefusal = 'not_allowed' | 'owner_only' | 'last_owner';

/**
 * Whether `actor` may invite someone as `role`: only who manages the team (owner, admin), and only an owner grants
 * owner.
 */
export function mayInvite(actor: Role, role: Role): TeamRefusal | null {
  if (!roleAllows(actor, 'team:write')) return 'not_allowed';
  if (role === 'owner' && actor !== 'owner') return 'owner_only';
  return null;
}

/**
 * Whether `actor` may change a member from `current` to `next` while the business has `owners` owners: only who manages
 * the team; an owner's role, and making someone owner, are the owners' to change; the last owner stays owner.
 */
export function mayChangeRole(actor: Role, current: Role, next: Role, owners: number): TeamRefusal | null {
  if (!roleAllows(actor, 'team:write')) return 'not_allowed';
  if ((current === 'owner' || next === 'owner') && actor !== 'owner') return 'owner_only';
  if (current === 'owner' && next !== 'owner' && owners <= 1) return 'last_owner';
  return null;
}

/** Whether `actor` may remove a member whose role is `current`: as a change of role away from the team. */
export function mayRemove(actor: Role, current: Role, owners: number): TeamRefusal | null {
  if (!roleAllows(actor, 'team:write')) return 'not_allowed';
  if (current === 'owner' && actor !== 'owner') return 'owner_only';
  if (current === 'owner' && owners <= 1) return 'last_owner';
  return null;
}
