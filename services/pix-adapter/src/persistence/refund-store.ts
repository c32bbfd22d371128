import type { EntityManager } from 'typeorm';
import { claimDueRows } from './claims';
import { PixRefundEntity } from './pix-refund.entity';

/** Stores the refund unless one with its id is stored already; returns whether it was inserted. */
export async function insertRefundOnce(
  manager: EntityManager,
  refund: Pick<
    PixRefundEntity,
    | 'refundId'
    | 'paymentId'
    | 'fundsId'
    | 'endToEndId'
    | 'devolucaoId'
    | 'amountCentavos'
    | 'descricao'
    | 'status'
    | 'failureReason'
    | 'correlationId'
  >,
): Promise<boolean> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO pix_refunds (refund_id, payment_id, end_to_end_id, devolucao_id, amount_centavos, descricao,
                              status, failure_reason, correlation_id, funds_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (refund_id) DO NOTHING RETURNING refund_id`,
    [
      refund.refundId,
      refund.paymentId,
      refund.endToEndId,
      refund.devolucaoId,
      refund.amountCentavos,
      refund.descricao,
      refund.status,
      refund.failureReason,
      refund.correlationId,
      refund.fundsId,
    ],
  );
  return inserted.length > 0;
}

/** The refund locked until the transaction ends, if it is still open (requested or processing); else null. */
export async function lockOpenRefund(
  manager: EntityManager,
  refundId: string,
): Promise<PixRefundEntity | null> {
  const refund = await manager.findOne(PixRefundEntity, {
    where: { refundId },
    lock: { mode: 'pessimistic_write' },
  });
  return refund && (refund.status === 'requested' || refund.status === 'processing') ? refund : null;
}

/**
 * Up to `limit` open refunds unchanged for `overdueSeconds` that nobody else is re-checking, each claimed for
 * `overdueSeconds`.
 */
export async function claimOverdueRefunds(
  manager: EntityManager,
  overdueSeconds: number,
  limit: number,
): Promise<string[]> {
  const due = await claimDueRows<{ refund_id: string }>(
    manager,
    {
      table: 'pix_refunds',
      key: 'refund_id',
      due: `status IN ('requested', 'processing') AND updated_at <= now() - $1 * interval '1 second'`,
      orderBy: 'updated_at',
      claimedUntil: `now() + $1 * interval '1 second'`,
      returning: 'refund_id',
    },
    [overdueSeconds],
    limit,
  );
  return due.map((row) => row.refund_id);
}

/**
 * The Pix (endToEndIds) with a devolução of ours asked for by `to` and still changing (asked, settled or failed) at or
 * after `from`: what a statement of the period must show even when the Pix itself was received before it.
 */
export async function pixWithDevolucoesBetween(
  manager: EntityManager,
  from: Date,
  to: Date,
): Promise<string[]> {
  const rows: Array<{ end_to_end_id: string }> = await manager.query(
    `SELECT DISTINCT end_to_end_id FROM pix_refunds
      WHERE end_to_end_id IS NOT NULL AND created_at <= $2 AND updated_at >= $1`,
    [from, to],
  );
  return rows.map((row) => row.end_to_end_id);
}
