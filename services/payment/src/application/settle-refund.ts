import { newPublicId, type RefundSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { refundSettledEvent, toRefundRecord } from '../domain/refund';
import { findReceivedFundsById, markRefundSettled } from '../persistence';
import { recordRefund } from './shared/payment-metrics';
import { emitFundsReturned } from './shared/received-funds-events';

/**
 * Records a rail's outcome for a refund and tells the merchant (`refund.succeeded` / `refund.failed`), once: per
 * message (inbox), and per refund (only a pending refund settles).
 */
export function settleRefund(
  uow: UnitOfWork,
  settled: RefundSettled,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    const refund = await markRefundSettled(tx.manager, settled);
    if (!refund) return;
    const eventId = newPublicId('evt');
    await tx.emit(
      refundSettledEvent(settled.outcome),
      {
        event_id: eventId,
        business_id: refund.businessId,
        occurred_at: new Date().toISOString(),
        refund: toRefundRecord(refund),
      },
      { messageId: eventId },
    );
    // The excess the refund carried went back with it: the books take it out of suspense.
    if (settled.outcome === 'succeeded' && refund.returnedFundsId !== null) {
      const funds = await findReceivedFundsById(tx.manager, refund.returnedFundsId);
      if (funds) await emitFundsReturned(tx, funds, refund.businessId, refund.id, refund.externalId);
    }
    tx.afterCommit(() => recordRefund(refund.method, settled.outcome));
  });
}
