import { createHash } from 'node:crypto';
import { isPspRefusal } from '../../clients/psp/psp-error';
import { pspFailure } from '../../clients/psp/psp-failure';
import type { PixDevolucao } from '../../clients/psp/devolucao';
import { devolucaoIdOf } from '../../domain/devolucao-id';
import { PixRefundEntity } from '../../persistence';
import {
  applyDevolucao,
  originOf,
  reportSettledRefundAgain,
  settlePixRefund,
  type RefundDeps,
} from './settle-pix-refund';

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
      settlePixRefund(
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

/** API Pix `descricao` holds at most 140 characters (the pacs.004's RemittanceInformation). */
export const DESCRICAO_MAX = 140;

/** The devolução id of a refund, or of an attempt of the operator's return of held funds: always the same for it. */
export function devolucaoIdFor(id: string): string {
  return devolucaoIdOf(id, (text) => createHash('sha256').update(text).digest());
}

/**
 * Carries a devolução out, once per id: the row stored for `refundId` (any redelivery, under any message id, finds
 * it), else the one `record` stores; then it is asked for outside any transaction. Asked again (a redelivery, or the
 * payment service's resend of a refund it still holds pending): one the PSP holds is left to its callback and the
 * devolução poll, one that ended is reported again (its first report may be what was lost). A PSP that cannot be
 * reached is thrown as unavailable, so the broker tries the message again later.
 */
export async function carryOutDevolucao(
  deps: RefundDeps,
  refundId: string,
  record: () => Promise<PixRefundEntity>,
): Promise<void> {
  const known = await deps.dataSource.manager.findOneBy(PixRefundEntity, { refundId });
  const refund = known ?? (await record());
  if (refund.status === 'succeeded' || refund.status === 'failed')
    return reportSettledRefundAgain(deps, { ...refund, status: refund.status });
  // processing: the PSP holds the devolução, and its callback or the devolução poll settles it.
  if (refund.status !== 'requested') return;
  await requestRefundDevolucao(deps, refund).catch((err: unknown) => pspFailure(err));
}
