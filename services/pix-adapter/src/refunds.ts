import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { pixRefundSettled } from '@gateway/contracts';
import type { MessageOrigin, Transaction, UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { devolucaoIdOf } from './domain/devolucao-id';
import { PixRefundEntity } from './persistence';
import type { ApiPixClient } from './psp/api-pix-client';
import type { PixDevolucao } from './psp/devolucao';
import { PspError } from './psp/psp-error';

export interface RefundDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ApiPixClient;
  logger: Logger;
}

/** The settled event's `failure_reason` holds at most this much. */
const FAILURE_REASON_MAX = 500;

const refundsSettled = counter('pix_refunds_settled_total', 'PIX refunds settled, by outcome', ['outcome']);

export function devolucaoIdOfRefund(refundId: string): string {
  return devolucaoIdOf(refundId, (text) => createHash('sha256').update(text).digest());
}

/**
 * The PIX a payment's refunds return: the one that paid its charge; failing that (a payment the payment service
 * counts as paid from PIX that did not pay the charge by themselves) the largest PIX the PSP confirmed on it.
 */
export async function refundablePixOf(manager: EntityManager, paymentId: string): Promise<string | null> {
  const rows: Array<{ end_to_end_id: string | null }> = await manager.query(
    `SELECT COALESCE(c.paid_end_to_end_id,
              (SELECT r.end_to_end_id FROM callbacks_received r
                WHERE r.txid = c.txid AND r.outcome IN ('applied', 'wrong_amount', 'late')
                ORDER BY r.amount_centavos DESC, r.id LIMIT 1)) AS end_to_end_id
       FROM charges c WHERE c.payment_id = $1`,
    [paymentId],
  );
  return rows[0]?.end_to_end_id ?? null;
}

/** Settlements carry the refund request's correlation id, whether its handler, a callback or the poll settles it. */
export function originOf(refund: Pick<PixRefundEntity, 'correlationId'>): MessageOrigin {
  return { correlationId: refund.correlationId };
}

/** A refusal of the PSP answers the same every time; its unavailability (or a token refused for now) may pass. */
export function isPspRefusal(error: unknown): error is PspError {
  return error instanceof PspError && !error.retryable && error.kind !== 'unauthorized';
}

/**
 * Ends a refund and emits pix.refund.settled.v1 in the same transaction, once: the row is locked and only one still
 * open is settled (the database also refuses any change of a final one).
 */
export async function settleRefund(
  tx: Transaction,
  refundId: string,
  settlement: { outcome: 'succeeded' | 'failed'; externalId: string | null; failureReason: string | null },
  logger: Logger,
): Promise<boolean> {
  const refund = await lockOpenRefund(tx, refundId);
  if (!refund) return false;
  const failureReason = settlement.failureReason?.slice(0, FAILURE_REASON_MAX) ?? null;
  await tx.manager.update(
    PixRefundEntity,
    { refundId },
    { status: settlement.outcome, failureReason, updatedAt: new Date() },
  );
  await tx.emit(pixRefundSettled, {
    refund_id: refundId,
    payment_id: refund.paymentId,
    outcome: settlement.outcome,
    external_id: settlement.externalId,
    failure_reason: failureReason,
  });
  refundsSettled.inc({ outcome: settlement.outcome });
  logger.info(
    {
      refund_id: refundId,
      payment_id: refund.paymentId,
      outcome: settlement.outcome,
      failure_reason: failureReason,
    },
    'PIX refund settled',
  );
  return true;
}

/**
 * Applies what the PSP says of a refund's devolução: EM_PROCESSAMENTO marks a requested refund processing (its
 * callback or the poll follows it); DEVOLVIDO settles it succeeded and NAO_REALIZADO failed with the PSP's reason.
 */
export async function applyDevolucao(
  tx: Transaction,
  refundId: string,
  devolucao: PixDevolucao,
  logger: Logger,
): Promise<void> {
  if (devolucao.status === 'EM_PROCESSAMENTO') {
    await tx.manager.update(
      PixRefundEntity,
      { refundId, status: 'requested' },
      { status: 'processing', updatedAt: new Date() },
    );
    return;
  }
  await settleRefund(
    tx,
    refundId,
    devolucao.status === 'DEVOLVIDO'
      ? { outcome: 'succeeded', externalId: devolucao.id, failureReason: null }
      : {
          outcome: 'failed',
          externalId: devolucao.id,
          failureReason: devolucao.motivo ?? 'Devolução não realizada pelo PSP.',
        },
    logger,
  );
}

/**
 * Asks the PSP for the refund's devolução outside any transaction (a replay meets the same devolução, its id being
 * derived from the refund), then records the answer in a short one. A refusal (over the PIX's value, past the 90-day
 * window, an unknown PIX) settles the refund failed with the PSP's own words; unavailability is thrown for the caller
 * to try again.
 */
export async function requestRefundDevolucao(deps: RefundDeps, refund: PixRefundEntity): Promise<void> {
  const { uow, psp, logger } = deps;
  if (refund.endToEndId === null) throw new Error(`refund ${refund.refundId} has no PIX to return`);
  let devolucao: PixDevolucao;
  try {
    devolucao = await psp.requestDevolucao(refund.endToEndId, refund.devolucaoId, {
      valorCentavos: refund.amountCentavos,
      ...(refund.descricao === null ? {} : { descricao: refund.descricao }),
    });
  } catch (error) {
    if (!isPspRefusal(error)) throw error;
    logger.warn(
      { refund_id: refund.refundId, status: error.status, detail: error.detail },
      'PSP refused a devolução',
    );
    await uow.run(originOf(refund), (tx) =>
      settleRefund(
        tx,
        refund.refundId,
        { outcome: 'failed', externalId: null, failureReason: `O PSP recusou a devolução: ${error.detail}` },
        logger,
      ),
    );
    return;
  }
  await uow.run(originOf(refund), (tx) => applyDevolucao(tx, refund.refundId, devolucao, logger));
}

/** Re-reads a devolução the PSP holds (`GET /pix/{e2eid}/devolucao/{id}`) and applies what it says now. */
export async function followDevolucao(deps: RefundDeps, refund: PixRefundEntity): Promise<void> {
  if (refund.endToEndId === null) throw new Error(`refund ${refund.refundId} has no PIX to return`);
  const devolucao = await deps.psp.getDevolucao(refund.endToEndId, refund.devolucaoId);
  await deps.uow.run(originOf(refund), (tx) => applyDevolucao(tx, refund.refundId, devolucao, deps.logger));
}

async function lockOpenRefund(tx: Transaction, refundId: string): Promise<PixRefundEntity | null> {
  const refund = await tx.manager.findOne(PixRefundEntity, {
    where: { refundId },
    lock: { mode: 'pessimistic_write' },
  });
  return refund && (refund.status === 'requested' || refund.status === 'processing') ? refund : null;
}
