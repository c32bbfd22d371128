import type { EntityManager } from 'typeorm';
import type { RefundSettled } from '@gateway/contracts';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { RefundEntity } from './refund.entity';

export function findRefund(
  manager: EntityManager,
  refundId: string,
  businessId: string,
): Promise<RefundEntity | null> {
  return manager.findOneBy(RefundEntity, { id: refundId, businessId });
}

/**
 * Records a pending refund of `amountCentavos` and reserves it on its payment in one step. The payment's CHECK
 * (refunds not failed within its amount) refuses any reservation past it, even one that skipped the lock.
 */
export async function insertRefund(
  manager: EntityManager,
  refund: Omit<RefundEntity, 'status' | 'failureReason' | 'externalId' | 'createdAt' | 'updatedAt'>,
): Promise<RefundEntity> {
  await manager.query(
    `UPDATE payments SET refund_reserved_centavos = refund_reserved_centavos + $2 WHERE id = $1`,
    [refund.paymentId, refund.amountCentavos],
  );
  const now = new Date();
  const entity = manager.create(RefundEntity, {
    ...refund,
    status: 'pending',
    failureReason: null,
    externalId: null,
    createdAt: now,
    updatedAt: now,
  });
  await manager.insert(RefundEntity, entity);
  return entity;
}

/** A page of a payment's refunds, newest first (creation time, then id). */
export function listRefundsOf(
  manager: EntityManager,
  paymentId: string,
  page: PageRequest,
): Promise<Page<RefundEntity> | undefined> {
  return newestCreatedPage(manager, RefundEntity, { payment_id: paymentId }, page);
}

/**
 * Moves a pending refund to its rail's outcome with its payment's totals: a succeeded refund adds to the payment's
 * `refunded_centavos`, a failed one frees its reservation. Null (and nothing written) when the refund is not pending:
 * settled already (a redelivery) or unknown.
 */
export async function markRefundSettled(
  manager: EntityManager,
  settled: RefundSettled,
): Promise<RefundEntity | null> {
  const [rows]: [Array<{ payment_id: string; amount_centavos: string }>, number] = await manager.query(
    `UPDATE refunds
        SET status = $2, external_id = COALESCE($3, external_id), failure_reason = $4, updated_at = now()
      WHERE id = $1 AND status = 'pending'
      RETURNING payment_id, amount_centavos`,
    [settled.refund_id, settled.outcome, settled.external_id, settled.failure_reason],
  );
  const changed = rows[0];
  if (!changed) return null;
  await manager.query(
    settled.outcome === 'succeeded'
      ? `UPDATE payments SET refunded_centavos = refunded_centavos + $2, updated_at = now() WHERE id = $1`
      : `UPDATE payments SET refund_reserved_centavos = refund_reserved_centavos - $2 WHERE id = $1`,
    [changed.payment_id, changed.amount_centavos],
  );
  return manager.findOneByOrFail(RefundEntity, { id: settled.refund_id });
}
