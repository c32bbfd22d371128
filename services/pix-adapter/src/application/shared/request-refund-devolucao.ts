import { isPspRefusal } from '../../clients/psp/psp-error';
import type { PixDevolucao } from '../../clients/psp/devolucao';
import type { PixRefundEntity } from '../../persistence';
import { applyDevolucao, originOf, settlePixRefund, type RefundDeps } from './settle-pix-refund';

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
