import { OPERATOR_RETURN, type FundsReturnSettled } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { findPayment, settleFundsOfOperatorReturn } from '../persistence';
import { emitFundsReturned } from './shared/received-funds-events';

const returnsSettled = counter(
  'payment_received_funds_operator_returns_settled_total',
  'Operator returns of received funds the rail settled, by outcome',
  ['rail', 'outcome'],
);

/**
 * A rail's outcome for the operator's return of held funds, once: per message (inbox), and per return (only one in
 * flight settles). Succeeded: the funds are `returned` by the operator with the rail's id of the return, and
 * `payment.funds.returned.v1` tells the books the money left the platform (suspense out of the PSP account or the
 * token holding). Failed: the funds are held again with the rail's reason, for the operator to see and return again.
 */
export function settleOperatorReturn(
  uow: UnitOfWork,
  settled: FundsReturnSettled,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    const funds = await settleFundsOfOperatorReturn(
      tx.manager,
      settled.return_id,
      settled.outcome === 'succeeded'
        ? { succeeded: true, reference: settled.external_id ?? settled.return_id }
        : { succeeded: false, reason: settled.failure_reason ?? 'A devolução não foi realizada pela rede.' },
    );
    if (!funds) return;
    if (settled.outcome === 'succeeded') {
      // No business when the money named a payment the gateway does not know: none is concerned, nobody is credited.
      const keeper = await findPayment(tx.manager, funds.paymentId);
      await emitFundsReturned(tx, funds, keeper?.businessId ?? null, OPERATOR_RETURN, funds.returnReference);
    }
    tx.afterCommit(() => returnsSettled.inc({ rail: funds.rail, outcome: settled.outcome }));
    context.logger.info(
      { funds_id: funds.fundsId, return_id: settled.return_id, outcome: settled.outcome },
      'operator return of received funds settled by the rail',
    );
  });
}
