import {
  fundsAssigned,
  fundsMoneyKey,
  newPublicId,
  type AssignReceivedFunds,
  type OperatorReceivedFundsItem,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { counter } from '@gateway/observability';
import { toOperatorReceivedFundsItem, whyFundsNotHeld } from '../domain/funds';
import { findPayment, findReceivedFundsById, lockPayment, markFundsAssigned } from '../persistence';
import { suspenseCreditFee, type DefaultFees } from './shared/fee-rules';

export interface AssignHeldFundsDeps {
  uow: UnitOfWork;
  defaultFees: DefaultFees;
}

const assignedByOperator = counter(
  'payment_received_funds_assigned_total',
  "Received funds the operator assigned to a payment's business",
  ['rail', 'kind'],
);

/**
 * The operator assigns held received funds to a payment's business: by default the payment the money named, or the
 * known payment `payment_id` (money naming a payment the gateway does not know, or the wrong one). The record is marked
 * assigned (never returned then, by hand or by a refund: the database refuses it) and `payment.funds.assigned.v1`
 * tells the books, in the same transaction, to move the money from suspense to the business. Under the lock of the
 * payment that keeps the funds, like the return by hand and the refund that could carry them: whichever comes first
 * takes them, the other finds them no longer held. Only money whose value in BRL the books were told is assigned (not
 * `unreadable`, not tokens without a price, nor money recorded before the books were). The event carries the fee the
 * target business's fee rule for the rail charges on the funds' value: the books credit it as a payment of that rail
 * (docs/money-model.md#suspense). Once per command (inbox).
 */
export function assignHeldFunds(
  deps: AssignHeldFundsDeps,
  command: AssignReceivedFunds,
  context: MessageContext,
): Promise<OperatorReceivedFundsItem> {
  return deps.uow.once(context, async (tx) => {
    const found = await findReceivedFundsById(tx.manager, command.funds_id);
    if (!found) throw new CommandError('NOT_FOUND', 'Fundos recebidos não encontrados.');
    const keeper = await lockPayment(tx.manager, found.paymentId);
    const targetId = command.payment_id ?? found.paymentId;
    const target = targetId === found.paymentId ? keeper : await findPayment(tx.manager, targetId);
    if (!target) {
      if (command.payment_id) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
      throw new CommandError(
        'MISSING_FIELDS',
        'Campo obrigatório ausente: payment_id (o dinheiro nomeia um pagamento que o gateway não conhece).',
      );
    }
    const funds = (await findReceivedFundsById(tx.manager, command.funds_id))!;
    if (funds.kind !== 'unreadable' && funds.valuedCentavos === null)
      throw new CommandError(
        'INVALID_STATUS',
        'O valor destes fundos em reais não é conhecido (tokens sem cotação): não podem ser atribuídos.',
      );
    const assigned = await markFundsAssigned(tx.manager, funds.fundsId, target.id);
    if (!assigned) throw new CommandError('INVALID_STATUS', whyFundsNotHeld(funds));
    const fee = await suspenseCreditFee(tx.manager, deps.defaultFees, target.businessId, assigned);
    const eventId = newPublicId('evt');
    await tx.emit(
      fundsAssigned,
      {
        event_id: eventId,
        occurred_at: assigned.assignedAt!.toISOString(),
        funds_id: assigned.fundsId,
        money_key: fundsMoneyKey({
          funds_id: assigned.fundsId,
          rail: assigned.rail,
          reference: assigned.railReference,
          instruction: assigned.instruction,
        }),
        rail: assigned.rail,
        payment_id: target.id,
        business_id: target.businessId,
        fee_centavos: fee,
      },
      { messageId: eventId },
    );
    tx.afterCommit(() => assignedByOperator.inc({ rail: assigned.rail, kind: assigned.kind }));
    context.logger.info(
      { funds_id: assigned.fundsId, payment_id: target.id, business_id: target.businessId },
      'received funds assigned by the operator',
    );
    return toOperatorReceivedFundsItem(assigned, keeper);
  });
}
