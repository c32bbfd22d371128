import type { EntityManager } from 'typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { OperatorEntity } from './operator.entity';
import { SecondFactorEntity } from './second-factor.entity';
import { UserEntity } from './user.entity';

export function findOperator(manager: EntityManager, userId: string): Promise<OperatorEntity | null> {
  return manager.findOneBy(OperatorEntity, { userId });
}

export async function insertOperator(
  manager: EntityManager,
  operator: { userId: string; invitedBy: string | null },
): Promise<void> {
  await manager.insert(OperatorEntity, operator);
}

/** Every operator with their e-mail, whether they have set a password yet, and their second factor; oldest first. */
export async function operatorsList(
  manager: EntityManager,
): Promise<Array<{ email: string; createdAt: Date; activated: boolean; secondFactor: boolean }>> {
  const rows = await manager
    .createQueryBuilder(OperatorEntity, 'o')
    .innerJoin(UserEntity, 'u', 'u.id = o.user_id')
    .leftJoin(SecondFactorEntity, 'f', 'f.user_id = o.user_id AND f.confirmed_at IS NOT NULL')
    .select([
      'u.email AS email',
      'o.created_at AS created_at',
      'u.email_verified_at AS verified_at',
      'f.user_id AS factor',
    ])
    .orderBy('o.created_at', 'ASC')
    .getRawMany<{ email: string; created_at: Date; verified_at: Date | null; factor: string | null }>();
  return rows.map((row) => ({
    email: row.email,
    createdAt: row.created_at,
    activated: row.verified_at !== null,
    secondFactor: row.factor !== null,
  }));
}

/**
 * One page of the entries that belong to no business, newest first (the operators' own actions, sign-ins of no
 * business's member, failed sign-ins of unknown addresses); `before` an entry's id to read older ones.
 */
export async function platformAuditEntries(
  manager: EntityManager,
  page: { limit: number; before?: string },
): Promise<AuditEntryEntity[]> {
  const query = manager
    .createQueryBuilder(AuditEntryEntity, 'a')
    .where('a.business_id IS NULL')
    .orderBy('a.id', 'DESC')
    .limit(page.limit);
  if (page.before) query.andWhere('a.id < :before', { before: page.before });
  return query.getMany();
}

/** The operators' entries about one business (`target` its id), newest first: what was changed there, by whom. */
export async function operatorEntriesAbout(
  manager: EntityManager,
  businessId: string,
  limit: number,
): Promise<AuditEntryEntity[]> {
  return manager
    .createQueryBuilder(AuditEntryEntity, 'a')
    .where('a.business_id IS NULL AND a.target = :businessId', { businessId })
    .orderBy('a.id', 'DESC')
    .limit(limit)
    .getMany();
}
