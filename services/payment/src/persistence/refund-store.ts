import type { EntityManager } from 'typeorm';
import type { RefundedExcess, RefundSettled } from '@gateway/contracts';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { markFundsReturnedByRefund, settleFundsOfRefund } from './received-funds-store';
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
 * (refunds not failed within its amount) refuses any reservation past it, even one that skipped the lock. Funds it
 * carries (`returnedFundsId`) are marked returned by it; the database refuses funds no longer held.
 */
export async function insertRefund(
  manager: EntityManager,
  refund: Omit<RefundEntity, 'status' | 'failureReason' | 'externalId' | 'createdAt' | 'updatedAt'>,
): Promise<RefundEntity> {
  await manager.query(
    `UPDATE payments SET refund_reserved_centavos = refund_reserved_centavos + $2, version = version + 1 WHERE id = $1`,
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
  if (
    entity.returnedFundsId !== null &&
    !(await markFundsReturnedByRefund(manager, entity.returnedFundsId, entity.id))
  )
    throw new Error(`received funds ${entity.returnedFundsId} are no longer held`);
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
  const [rows]: [
    Array<{ payment_id: string; amount_centavos: string; returned_funds_id: string | null }>,
    number,
  ] = await manager.query(
    `UPDATE refunds
        SET status = $2, external_id = COALESCE($3, external_id), failure_reason = $4, updated_at = now()
      WHERE id = $1 AND status = 'pending'
      RETURNING payment_id, amount_centavos, returned_funds_id`,
    [settled.refund_id, settled.outcome, settled.external_id, settled.failure_reason],
  );
  const changed = rows[0];
  if (!changed) return null;
  await manager.query(
    settled.outcome === 'succeeded'
      ? `UPDATE payments SET refunded_centavos = refunded_centavos + $2, updated_at = now(), version = version + 1 WHERE id = $1`
      : `UPDATE payments SET refund_reserved_centavos = refund_reserved_centavos - $2, version = version + 1 WHERE id = $1`,
    [changed.payment_id, changed.amount_centavos],
  );
  await settleFundsOfRefund(
    manager,
    { id: settled.refund_id, returnedFundsId: changed.returned_funds_id },
    settled.outcome,
  );
  return manager.findOneByOrFail(RefundEntity, { id: settled.refund_id });
}

export interface StalePendingRefund {
  refundId: string;
  paymentId: string;
  method: RefundEntity['method'];
  amountCentavos: number;
  paymentAmountCentavos: number;
  reason: string | null;
  /** What it carries besides its amount, as on its first request. */
  excess: RefundedExcess | null;
}

/**
 * Pending refunds last asked of their rail over `afterSeconds` ago, at most `limit`, marked asked now (their
 * `updated_at`) in the caller's transaction; rows another pass holds are skipped.
 */
export async function claimStalePendingRefunds(
  manager: EntityManager,
  afterSeconds: number,
  limit: number,
): Promise<StalePendingRefund[]> {
  // An UPDATE answers [rows, count].
  const [rows]: [
    Array<{
      id: string;
      payment_id: string;
      method: RefundEntity['method'];
      amount_centavos: string;
      payment_amount_centavos: string;
      reason: string | null;
      returned_funds_id: string | null;
      excess_centavos: string | null;
      excess_base_units: string | null;
    }>,
    number,
  ] = await manager.query(
    `WITH stale AS (
       SELECT id FROM refunds
        WHERE status = 'pending' AND updated_at < now() - make_interval(secs => $1)
        ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE refunds SET updated_at = now() FROM stale, payments
      WHERE refunds.id = stale.id AND payments.id = refunds.payment_id
     RETURNING refunds.id, refunds.payment_id, refunds.method, refunds.amount_centavos,
               COALESCE(payments.amount_paid_centavos, payments.amount_centavos) AS payment_amount_centavos, refunds.reason, refunds.returned_funds_id,
               (SELECT amount_centavos FROM received_funds WHERE funds_id = refunds.returned_funds_id)
                 AS excess_centavos,
               (SELECT amount_base_units FROM received_funds WHERE funds_id = refunds.returned_funds_id)
                 AS excess_base_units`,
    [afterSeconds, limit],
  );
  return rows.map((row) => ({
    refundId: row.id,
    paymentId: row.payment_id,
    method: row.method,
    amountCentavos: Number(row.amount_centavos),
    paymentAmountCentavos: Number(row.payment_amount_centavos),
    reason: row.reason,
    excess:
      row.returned_funds_id === null
        ? null
        : {
            funds_id: row.returned_funds_id,
            amount_centavos: row.excess_centavos === null ? null : Number(row.excess_centavos),
            amount_base_units: row.excess_base_units,
          },
  }));
}
