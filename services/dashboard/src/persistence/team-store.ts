import type { EntityManager } from 'typeorm';
import type { Role } from '../domain/roles';
import { InvitationEntity } from './invitation.entity';
import { MembershipEntity } from './membership.entity';
import { UserEntity } from './user.entity';

export function insertInvitation(
  manager: EntityManager,
  invitation: Pick<
    InvitationEntity,
    'id' | 'businessId' | 'email' | 'role' | 'tokenHash' | 'invitedBy' | 'expiresAt'
  >,
): Promise<InvitationEntity> {
  return manager.save(
    manager.create(InvitationEntity, { ...invitation, acceptedAt: null, acceptedBy: null, revokedAt: null }),
  );
}

/** The business's invitations still open at `now` (not accepted, revoked or expired), newest first. */
export function pendingInvitationsOf(
  manager: EntityManager,
  businessId: string,
  now: Date,
): Promise<InvitationEntity[]> {
  return manager
    .createQueryBuilder(InvitationEntity, 'i')
    .where('i.business_id = :businessId AND i.accepted_at IS NULL AND i.revoked_at IS NULL', { businessId })
    .andWhere('i.expires_at > :now', { now })
    .orderBy('i.created_at', 'DESC')
    .getMany();
}

/** An open invitation by its token's hash, or null (unknown, accepted, revoked, expired at `now`). */
export async function findOpenInvitation(
  manager: EntityManager,
  tokenHash: string,
  now: Date,
): Promise<InvitationEntity | null> {
  const invitation = await manager.findOneBy(InvitationEntity, { tokenHash });
  if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now)
    return null;
  return invitation;
}

/** Accepts an open invitation once (one statement: two concurrent acceptances cannot both win); false otherwise. */
export async function acceptInvitationOnce(
  manager: EntityManager,
  id: string,
  userId: string,
  now: Date,
): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .update(InvitationEntity)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where('id = :id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now', { id, now })
    .execute();
  return (result.affected ?? 0) === 1;
}

/** Revokes an open invitation of this business (another business's id is not found): false when there is none. */
export async function revokeInvitationOf(
  manager: EntityManager,
  businessId: string,
  id: string,
  now: Date,
): Promise<InvitationEntity | null> {
  const result = await manager
    .createQueryBuilder()
    .update(InvitationEntity)
    .set({ revokedAt: now })
    .where('id = :id AND business_id = :businessId AND accepted_at IS NULL AND revoked_at IS NULL', {
      id,
      businessId,
    })
    .returning('email, role')
    .execute();
  const rows = result.raw as Array<{ email: string; role: Role }>;
  return rows[0] ? Object.assign(new InvitationEntity(), { id, businessId, ...rows[0] }) : null;
}

/**
 * The business's memberships, locked for the rest of the transaction: a change of roles counts the owners on rows no
 * concurrent change can alter meanwhile (the business always keeps one).
 */
export async function lockTeam(
  manager: EntityManager,
  businessId: string,
): Promise<Array<{ userId: string; role: Role; email: string }>> {
  const memberships = await manager
    .createQueryBuilder(MembershipEntity, 'm')
    .setLock('pessimistic_write')
    .where('m.business_id = :businessId', { businessId })
    .getMany();
  const users = memberships.length
    ? await manager.findBy(
        UserEntity,
        memberships.map((m) => ({ id: m.userId })),
      )
    : [];
  const emails = new Map(users.map((user) => [user.id, user.email]));
  return memberships.map((m) => ({ userId: m.userId, role: m.role, email: emails.get(m.userId) ?? '' }));
}

export async function setMemberRole(
  manager: EntityManager,
  businessId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await manager.update(MembershipEntity, { businessId, userId }, { role });
}

export async function deleteMembership(
  manager: EntityManager,
  businessId: string,
  userId: string,
): Promise<void> {
  await manager.delete(MembershipEntity, { businessId, userId });
}

/** A business's team with each person's e-mail and whether it is verified, oldest first. */
export async function teamMembersOf(
  manager: EntityManager,
  businessId: string,
): Promise<Array<{ userId: string; email: string; role: Role; emailVerified: boolean; createdAt: Date }>> {
  const rows = await manager
    .createQueryBuilder(MembershipEntity, 'm')
    .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
    .select([
      'm.user_id AS user_id',
      'u.email AS email',
      'm.role AS role',
      'u.email_verified_at AS email_verified_at',
      'm.created_at AS created_at',
    ])
    .where('m.business_id = :businessId', { businessId })
    .orderBy('m.created_at', 'ASC')
    .getRawMany<{
      user_id: string;
      email: string;
      role: Role;
      email_verified_at: Date | null;
      created_at: Date;
    }>();
  return rows.map((row) => ({
    userId: row.user_id,
    email: row.email,
    role: row.role,
    emailVerified: row.email_verified_at !== null,
    createdAt: row.created_at,
  }));
}
