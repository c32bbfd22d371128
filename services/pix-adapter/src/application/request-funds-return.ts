import type { FundsReturnRequested } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { PixRefundEntity } from '../persistence';
import { insertRefundOnce } from '../persistence/refund-store';
import { DESCRICAO_MAX, carryOutDevolucao, devolucaoIdFor } from './shared/request-refund-devolucao';
import type { RefundDeps } from './shared/settle-pix-refund';

/**
 * Carries the operator's return of held funds out as one devolução of the Pix they came with (its endToEndId), for
 * their amount, exactly as a refund's: stored first once per return attempt, its devolução id derived from that
 * attempt (a lost answer is read again, never sent twice), then asked for outside any transaction; the PSP's callback
 * or the poll settles it with `pix.funds-return.settled.v1`.
 */
export async function requestFundsReturn(
  deps: RefundDeps,
  event: FundsReturnRequested,
  context: MessageContext,
): Promise<void> {
  await carryOutDevolucao(deps, event.return_id, async () => {
    const { envelope } = context;
    await insertRefundOnce(deps.dataSource.manager, {
      refundId: event.return_id,
      paymentId: event.payment_id,
      fundsId: event.funds_id,
      endToEndId: event.rail_reference,
      devolucaoId: devolucaoIdFor(event.return_id),
      amountCentavos: event.amount_centavos!,
      descricao: event.reason ? event.reason.slice(0, DESCRICAO_MAX) : null,
      status: 'requested',
      failureReason: null,
      correlationId: envelope.correlation_id,
    });
    context.logger.info(
      { return_id: event.return_id, funds_id: event.funds_id, end_to_end_id: event.rail_reference },
      'operator return of held funds recorded',
    );
    return deps.dataSource.manager.findOneByOrFail(PixRefundEntity, { refundId: event.return_id });
  });
}
