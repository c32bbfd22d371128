import { pixRefundSettled, type RefundRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { PixRefundEntity } from '../persistence';
import { refundablePixOf } from '../persistence/received-pix-store';
import { insertRefundOnce } from '../persistence/refund-store';
import { DESCRICAO_MAX, carryOutDevolucao, devolucaoIdFor } from './shared/request-refund-devolucao';
import type { RefundDeps } from './shared/settle-pix-refund';

const NO_PIX = 'Nenhum PIX recebido foi encontrado para este pagamento.';

/**
 * Carries a refund out as one devolução of the PIX that paid the payment. The refund is stored first, once per
 * refund id (any redelivery, under any message id, finds it), then the devolução is asked for outside any
 * transaction; the PSP's callback (or the poll, when it is lost) settles it. A PSP that cannot be reached is thrown
 * as unavailable, so the broker tries the message again later; a refusal settles the refund failed.
 */
export async function requestRefund(
  deps: RefundDeps,
  event: RefundRequested,
  context: MessageContext,
): Promise<void> {
  await carryOutDevolucao(deps, event.refund_id, () => recordRefund(deps, event, context));
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
    const inserted = await insertRefundOnce(tx.manager, {
      refundId: event.refund_id,
      paymentId: event.payment_id,
      fundsId: null,
      endToEndId,
      devolucaoId: devolucaoIdFor(event.refund_id),
      // An overpayment's excess the payment service put on the refund goes back in the same devolução.
      amountCentavos: event.amount_centavos + (event.excess?.amount_centavos ?? 0),
      // An empty descricao is not one (API Pix refuses it).
      descricao: event.reason ? event.reason.slice(0, DESCRICAO_MAX) : null,
      status: failureReason === null ? 'requested' : 'failed',
      failureReason,
      correlationId: envelope.correlation_id,
    });
    if (inserted && failureReason !== null) {
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
