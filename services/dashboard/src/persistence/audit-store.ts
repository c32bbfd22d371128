import type { EntityManager } from 'typeorm';
import { AuditEntryEntity } from './audit-entry.entity';

export async function insertAuditEntry(
  manager: EntityManager,
  entry: Omit<AuditEntryEntity, 'id' | 'createdAt'>,
): Promise<void> {
  await manager.insert(AuditEntryEntity, entry);
}

/** One page of the business's entries, newest first; `before` an entry's id to read older ones. */
export async function auditEntriesOf(
  manager: EntityManager,
  businessId: string,
  page: { limit: number; before?: string },
): Promise<AuditEntryEntity[]> {
  const query = manager
    .createQueryBuilder(AuditEntryEntity, 'a')
    .where('a.business_id = :businessId', { businessId })
    .orderBy('a.id', 'DESC')
    .limit(page.limit);
  if (page.before) query.andWhere('a.id < :before', { before: page.before });
  return query.getMany();
}
