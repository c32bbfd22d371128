import type { DataSource } from 'typeorm';
import { MAX_REFUND_FAILURE_REASON, pixFundsReturnSettled, pixRefundSettled } from '@gateway/contracts';
import type { MessageOrigin, Transaction, UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { PixRefundEntity } from '../../persistence';
import { lockOpenRefund } from '../../persistence/refund-store';
import type { ChargePsp } from '../../clients/psp/psp-accounts';
import type { PixDevolucao } from '../../clients/psp/devolucao';

export interface RefundDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  psp: ChargePsp;
  logger: Logger;
}

/** The settled event's `failure_reason` holds at most this much. */

const refundsSettled = counter('pix_refunds_settled_total', 'PIX refunds settled, by outcome', ['outcome']);

/** Settlements carry the refund request's correlation id, whether its handler, a callback or the poll settles it. */
export function originOf(refund: Pick<PixRefundEntity, 'correlationId'>): MessageOrigin {
  return { correlationId: refund.correlationId };
}

/**
 * Ends a refund and emits pix.refund.settled.v1 (pix.funds-return.settled.v1 for the operator's return of held funds)
 * in the same transaction, once: the row is locked and only one still
 * open is settled (the database also refuses any change of a final one).
 */
export async function settlePixRefund(
  tx: Transaction,
  refundId: string,
  settlement: { outcome: 'succeeded' | 'failed'; externalId: string | null; failureReason: string | null },
  logger: Logger,
): Promise<boolean> {
  const refund = await lockOpenRefund(tx.manager, refundId);
  if (!refund) return false;
  const failureReason = settlement.failureReason?.slice(0, MAX_REFUND_FAILURE_REASON) ?? null;
  await tx.manager.update(
    PixRefundEntity,
    { refundId },
    { status: settlement.outcome, failureReason, updatedAt: new Date() },
  );
  await reportSettlement(tx, refund, { ...settlement, failureReason });
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

/** pix.refund.settled.v1 (pix.funds-return.settled.v1 for the operator's return of held funds) with the outcome. */
async function reportSettlement(
  tx: Transaction,
  refund: Pick<PixRefundEntity, 'refundId' | 'paymentId' | 'fundsId'>,
  settlement: { outcome: 'succeeded' | 'failed'; externalId: string | null; failureReason: string | null },
): Promise<void> {
  const outcome = {
    outcome: settlement.outcome,
    external_id: settlement.externalId,
    failure_reason: settlement.failureReason,
  };
  if (refund.fundsId === null)
    await tx.emit(pixRefundSettled, { refund_id: refund.refundId, payment_id: refund.paymentId, ...outcome });
  else
    await tx.emit(pixFundsReturnSettled, {
      return_id: refund.refundId,
      funds_id: refund.fundsId,
      ...outcome,
    });
}

/**
 * Tells the payment service again how a settled refund ended, when it asks for the refund again (its resend of a
 * refund it still holds pending: the first report was lost on the way). The payment service settles a refund once,
 * so a report it had received changes nothing. A succeeded devolução's id at the PSP is the refund's own.
 */
export function reportSettledRefundAgain(
  deps: Pick<RefundDeps, 'uow'>,
  refund: PixRefundEntity & { status: 'succeeded' | 'failed' },
): Promise<void> {
  return deps.uow.run(originOf(refund), (tx) =>
    reportSettlement(tx, refund, {
      outcome: refund.status,
      externalId: refund.status === 'succeeded' ? refund.devolucaoId : null,
      failureReason: refund.failureReason,
    }),
  );
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
  await settlePixRefund(
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

/** Re-reads a devolução the PSP holds (`GET /pix/{e2eid}/devolucao/{id}`) and applies what it says now. */
export async function followDevolucao(deps: RefundDeps, refund: PixRefundEntity): Promise<void> {
  if (refund.endToEndId === null) throw new Error(`refund ${refund.refundId} has no PIX to return`);
  const devolucao = await deps.psp.getDevolucao(refund.endToEndId, refund.devolucaoId);
  await deps.uow.run(originOf(refund), (tx) => applyDevolucao(tx, refund.refundId, devolucao, deps.logger));
}
