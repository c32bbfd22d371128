import type { EntityManager } from 'typeorm';
import type { Role } from '../domain/roles';
import { BusinessEntity } from './business.entity';
import { MembershipEntity } from './membership.entity';
import { UserEntity } from './user.entity';

export function findUserByEmail(manager: EntityManager, email: string): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, { email });
}

export function findUser(manager: EntityManager, id: string): Promise<UserEntity | null> {
  return manager.findOneBy(UserEntity, { id });
}

export function insertUser(
  manager: EntityManager,
  user: Pick<UserEntity, 'id' | 'email' | 'passwordHash'>,
): Promise<UserEntity> {
  return manager.save(manager.create(UserEntity, user));
}

export function insertBusiness(
  manager: EntityManager,
  business: Omit<BusinessEntity, 'createdAt' | 'apiKeyMarked'> &
    Partial<Pick<BusinessEntity, 'apiKeyMarked'>>,
): Promise<BusinessEntity> {
  return manager.save(manager.create(BusinessEntity, business));
}

export function findBusiness(manager: EntityManager, id: string): Promise<BusinessEntity | null> {
  return manager.findOneBy(BusinessEntity, { id });
}

/**
 * Sets the business's time zone, the row locked meanwhile; answers the zone it had (null when there is no such
 * business).
 */
export async function setBusinessTimeZone(
  manager: EntityManager,
  id: string,
  timeZone: string,
): Promise<string | null> {
  const business = await manager.findOne(BusinessEntity, {
    where: { id },
    lock: { mode: 'pessimistic_write' },
  });
  if (!business) return null;
  if (business.timeZone !== timeZone) await manager.update(BusinessEntity, { id }, { timeZone });
  return business.timeZone;
}

export function insertMembership(
  manager: EntityManager,
  membership: { userId: string; businessId: string; role: Role },
): Promise<MembershipEntity> {
  return manager.save(manager.create(MembershipEntity, membership));
}

/** The user's memberships, oldest first (the first is the business a sign-in opens). */
export function membershipsOf(manager: EntityManager, userId: string): Promise<MembershipEntity[]> {
  return manager.find(MembershipEntity, { where: { userId }, order: { createdAt: 'ASC' } });
}

export function findMembership(
  manager: EntityManager,
  userId: string,
  businessId: string,
): Promise<MembershipEntity | null> {
  return manager.findOneBy(MembershipEntity, { userId, businessId });
}

/** A business's team, with each person's e-mail, oldest first. */
export async function teamOf(
  manager: EntityManager,
  businessId: string,
): Promise<Array<{ email: string; role: Role; createdAt: Date }>> {
  const rows = await manager
    .createQueryBuilder(MembershipEntity, 'm')
    .innerJoin(UserEntity, 'u', 'u.id = m.user_id')
    .select(['u.email AS email', 'm.role AS role', 'm.created_at AS created_at'])
    .where('m.business_id = :businessId', { businessId })
    .orderBy('m.created_at', 'ASC')
    .getRawMany<{ email: string; role: Role; created_at: Date }>();
  return rows.map((row) => ({ email: row.email, role: row.role, createdAt: row.created_at }));
}

/** Businesses whose key the gateway does not know yet as the dashboard's, oldest first, at most `limit`. */
export function businessesWithUnmarkedKey(manager: EntityManager, limit: number): Promise<BusinessEntity[]> {
  return manager.find(BusinessEntity, {
    where: { apiKeyMarked: false },
    order: { createdAt: 'ASC' },
    take: limit,
  });
}

/** Records that the gateway knows the business's key as the dashboard's. */
export async function markBusinessKey(manager: EntityManager, businessId: string): Promise<void> {
  await manager.update(BusinessEntity, { id: businessId }, { apiKeyMarked: true });
}
