import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { DisputeEntity } from './dispute.entity';

export function findDispute(
  manager: EntityManager,
  disputeId: string,
  businessId: string,
): Promise<DisputeEntity | null> {
  return manager.findOneBy(DisputeEntity, { id: disputeId, businessId });
}

/** The dispute of a MED devolução, locked until the transaction ends. */
export function lockDisputeOf(manager: EntityManager, externalId: string): Promise<DisputeEntity | null> {
  return manager.findOne(DisputeEntity, { where: { externalId }, lock: { mode: 'pessimistic_write' } });
}

/** A page of a business's disputes, newest first (creation time, then id). */
export function listDisputesOf(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<DisputeEntity> | undefined> {
  return newestCreatedPage(manager, DisputeEntity, { business_id: businessId }, page);
}

/** Records an open dispute and holds its amount on its payment in one step (the payment's CHECK bounds it). */
export async function insertOpenDispute(
  manager: EntityManager,
  dispute: Omit<DisputeEntity, 'status' | 'defenceSubmittedAt' | 'createdAt' | 'updatedAt'>,
  now: Date,
): Promise<DisputeEntity> {
  await manager.query(`UPDATE payments SET disputed_centavos = disputed_centavos + $2 WHERE id = $1`, [
    dispute.paymentId,
    dispute.amountCentavos,
  ]);
  const entity = manager.create(DisputeEntity, {
    ...dispute,
    status: 'open',
    defenceSubmittedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  await manager.insert(DisputeEntity, entity);
  return entity;
}

/**
 * Closes an open dispute: won frees its amount on the payment, lost keeps it (the money went back to the payer). The
 * row is locked by the caller; the database refuses any change of a closed one.
 */
export async function closeDispute(
  manager: EntityManager,
  dispute: DisputeEntity,
  outcome: 'won' | 'lost',
  now: Date,
): Promise<DisputeEntity> {
  await manager.update(
    DisputeEntity,
    { id: dispute.id, status: 'open' },
    { status: outcome, updatedAt: now },
  );
  if (outcome === 'won')
    await manager.query(`UPDATE payments SET disputed_centavos = disputed_centavos - $2 WHERE id = $1`, [
      dispute.paymentId,
      dispute.amountCentavos,
    ]);
  return { ...dispute, status: outcome, updatedAt: now };
}

/**
 * Records that the dispute's defence reached the PSP, if it is still open and undefended: the dispute as it now stands,
 * or null when it was closed or defended meanwhile.
 */
export async function markDefenceSubmitted(
  manager: EntityManager,
  disputeId: string,
  now: Date,
): Promise<DisputeEntity | null> {
  const result = await manager
    .createQueryBuilder()
    .update(DisputeEntity)
    .set({ defenceSubmittedAt: now, updatedAt: now })
    .where('id = :id AND status = :status AND defence_submitted_at IS NULL', {
      id: disputeId,
      status: 'open',
    })
    .execute();
  if (!result.affected) return null;
  return manager.findOneByOrFail(DisputeEntity, { id: disputeId });
}
