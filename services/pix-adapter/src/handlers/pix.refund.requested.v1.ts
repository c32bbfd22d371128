import { pixRefundSettled, type RefundRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { PixRefundEntity } from '../persistence';
import { pspFailure } from '../psp-failure';
import { devolucaoIdOfRefund, refundablePixOf, requestRefundDevolucao, type RefundDeps } from '../refunds';

/** API Pix `descricao` holds at most 140 characters (the pacs.004's RemittanceInformation). */
const DESCRICAO_MAX = 140;
const NO_PIX = 'Nenhum PIX recebido foi encontrado para este pagamento.';

/**
 * Carries a refund out as one devolução of the PIX that paid the payment. The refund is stored first, once per
 * refund id (any redelivery, under any message id, finds it), then the devolução is asked for outside any
 * transaction; the PSP's callback (or the poll, when it is lost) settles it. A PSP that cannot be reached is thrown
 * as unavailable, so the broker tries the message again later; a refusal settles the refund failed.
 */
export function handleRefundRequested(deps: RefundDeps) {
  return async (event: RefundRequested, context: MessageContext): Promise<void> => {
    const known = await deps.dataSource.manager.findOneBy(PixRefundEntity, { refundId: event.refund_id });
    const refund = known ?? (await recordRefund(deps, event, context));
    // processing: the PSP holds the devolução and its callback or the poll settles it; final: settled already.
    if (refund.status !== 'requested') return;
    await requestRefundDevolucao(deps, refund).catch((err: unknown) => pspFailure(err));
  };
}

/** Stores the refund once; without a PIX to return it is stored failed and settled in the same transaction. */
async function recordRefund(
  deps: RefundDeps,
  event: RefundRequested,
  context: MessageContext,
): Promise<PixRefundEntity> {
  const endToEndId = await refundablePixOf(deps.dataSource.manager, event.payment_id);
  const { envelope } = context;
  return deps.uow.run({ correlationId: envelope.correlation_id, causationId: envelope.id }, async (tx) => {
    const failureReason = endToEndId === null ? NO_PIX : null;
    const inserted: unknown[] = await tx.manager.query(
      `INSERT INTO pix_refunds (refund_id, payment_id, end_to_end_id, devolucao_id, amount_centavos, descricao,
                                status, failure_reason, correlation_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (refund_id) DO NOTHING RETURNING refund_id`,
      [
        event.refund_id,
        event.payment_id,
        endToEndId,
        devolucaoIdOfRefund(event.refund_id),
        event.amount_centavos,
        // An empty descricao is not one (API Pix refuses it).
        event.reason ? event.reason.slice(0, DESCRICAO_MAX) : null,
        failureReason === null ? 'requested' : 'failed',
        failureReason,
        envelope.correlation_id,
      ],
    );
    if (inserted.length > 0 && failureReason !== null) {
      context.logger.warn(
        { refund_id: event.refund_id, payment_id: event.payment_id },
        'refund of a payment without PIX',
      );
      await tx.emit(pixRefundSettled, {
        refund_id: event.refund_id,
        payment_id: event.payment_id,
        outcome: 'failed',
        external_id: null,
        failure_reason: failureReason,
      });
    }
    return tx.manager.findOneByOrFail(PixRefundEntity, { refundId: event.refund_id });
  });
}
