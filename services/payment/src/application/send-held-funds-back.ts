import { OPERATOR_RETURN, type OperatorReceivedFundsItem, type ReturnHeldFunds } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import type { Rails } from '../clients';
import {
  operatorReturnId,
  operatorReturnRequest,
  returnedByOperatorAlready,
  toOperatorReceivedFundsItem,
  whyFundsNotHeld,
} from '../domain/funds';
import {
  findReceivedFundsById,
  lockPayment,
  markFundsReturningByOperator,
  returnsElsewhere,
} from '../persistence';

const returnsStarted = counter(
  'payment_received_funds_operator_returns_total',
  'Returns of held received funds to their payer the operator started through the rail',
  ['rail', 'kind'],
);

/**
 * The operator sends held received funds back to their payer through the rail they came by. In one transaction the
 * record becomes `returning` under a new attempt id and the rail is asked to carry it out
 * (`pix.funds-return.requested.v1` / `crypto.funds-return.requested.v1`, from the outbox); the rail's outcome settles
 * it (settleOperatorReturn). Under the lock of the payment that keeps the funds, like an assignment, a return by hand
 * and the refund that could carry them: whichever comes first takes them, the others find them no longer held. Money
 * naming a payment the gateway does not know goes back the same way: the rail needs only the money's own Pix or
 * transfer, and the record's conditional update alone decides against a racing assignment. Funds the operator is
 * returning already, or returned — through this record or another record of the same money (one transfer naming
 * several payments) — are answered as they stand: one return on the rail. Once per command (inbox).
 */
export function sendHeldFundsBack(
  deps: { uow: UnitOfWork; rails: Rails },
  command: ReturnHeldFunds,
  context: MessageContext,
): Promise<OperatorReceivedFundsItem> {
  return deps.uow.once(context, async (tx) => {
    const found = await findReceivedFundsById(tx.manager, command.funds_id);
    if (!found) throw new CommandError('NOT_FOUND', 'Fundos recebidos não encontrados.');
    const keeper = await lockPayment(tx.manager, found.paymentId);
    const funds = (await findReceivedFundsById(tx.manager, command.funds_id))!;
    if (funds.returnedBy === OPERATOR_RETURN) return toOperatorReceivedFundsItem(funds, keeper);
    const returnId = operatorReturnId(funds.fundsId, funds.returnAttempts + 1);
    const returning = await markFundsReturningByOperator(tx.manager, funds, returnId, command.reason ?? null);
    if (!returning) {
      // Taken meanwhile, or the same money taken through another record: read again, after the taking's lock.
      const standing = (await findReceivedFundsById(tx.manager, command.funds_id))!;
      const elsewhere = (await returnsElsewhere(tx.manager, [standing.fundsId])).get(standing.fundsId);
      if (returnedByOperatorAlready(standing, elsewhere))
        return toOperatorReceivedFundsItem(standing, keeper, elsewhere);
      throw new CommandError('INVALID_STATUS', whyFundsNotHeld(standing));
    }
    await tx.emit(
      deps.rails.of(returning.rail).fundsReturnRequested,
      operatorReturnRequest(returning, returnId, command.reason ?? null),
    );
    tx.afterCommit(() => returnsStarted.inc({ rail: returning.rail, kind: returning.kind }));
    context.logger.info(
      { funds_id: returning.fundsId, return_id: returnId, rail: returning.rail },
      'operator return of received funds requested at the rail',
    );
    return toOperatorReceivedFundsItem(returning, keeper);
  });
}
