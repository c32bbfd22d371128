import { MANUAL_RETURN, type ReceivedFundsItem, type ReturnReceivedFunds } from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import type { EntityManager } from 'typeorm';
import { counter } from '@gateway/observability';
import { toReceivedFundsItem, tokenDecimalsOf, whyFundsNotHeld } from '../domain/funds';
import {
  findReceivedFunds,
  isMoneyOfSeveralPayments,
  lockPayment,
  markFundsReturnedByHand,
  type ReceivedFundsEntity,
} from '../persistence';
import { suspenseCreditFee, type DefaultFees } from './shared/fee-rules';
import { emitFundsReturned } from './shared/received-funds-events';

export interface ReturnReceivedFundsDeps {
  uow: UnitOfWork;
  defaultFees: DefaultFees;
}

const returnedByHand = counter(
  'payment_received_funds_returned_by_hand_total',
  'Received funds recorded as returned to the payer outside the gateway',
  ['rail', 'kind'],
);

const notFound = () => new CommandError('NOT_FOUND', 'Fundos recebidos não encontrados.');

/**
 * Records that kept money of the business's payment went back to the payer outside the gateway, so no refund returns
 * it again. Under the payment's lock, like the refund that could carry the same excess: whichever comes first takes
 * it, the other finds it no longer held (INVALID_STATUS naming who returns it). Funds whose amount is not known yet
 * (`unreadable`) cannot be returned, and money one transfer instruction sent naming several payments (kept by each as
 * `unmatched`) goes back through one of them only. The platform still holds the money and now owes it to the
 * business: the event carries the fee its fee rule for the rail charges on the funds' value, and the books credit it
 * as a payment of that rail (docs/money-model.md#suspense). Once per command (inbox).
 */
export function returnReceivedFunds(
  deps: ReturnReceivedFundsDeps,
  command: ReturnReceivedFunds,
  context: MessageContext,
): Promise<ReceivedFundsItem> {
  return deps.uow.once(context, async (tx) => {
    const payment = await lockPayment(tx.manager, command.payment_id, command.business_id);
    if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
    const returned = await markFundsReturnedByHand(tx.manager, payment.id, command.funds_id);
    if (!returned) {
      const funds = await findReceivedFunds(tx.manager, payment.id, command.funds_id);
      if (!funds) throw notFound();
      throw new CommandError('INVALID_STATUS', await whyNotReturnableByHand(tx.manager, funds));
    }
    const fee = await suspenseCreditFee(tx.manager, deps.defaultFees, payment.businessId, returned);
    await emitFundsReturned(tx, returned, payment.businessId, MANUAL_RETURN, null, fee);
    tx.afterCommit(() => returnedByHand.inc({ rail: returned.rail, kind: returned.kind }));
    context.logger.info(
      { payment_id: payment.id, funds_id: returned.fundsId, kind: returned.kind },
      'received funds recorded as returned by hand',
    );
    return toReceivedFundsItem(returned, tokenDecimalsOf(payment.instructions));
  });
}

/**
 * Why held-looking funds cannot be recorded returned by hand: not held (see whyFundsNotHeld), or held but no business's
 * to take by its own word: money several payments' references named, or tokens whose value in BRL is not known.
 */
async function whyNotReturnableByHand(manager: EntityManager, funds: ReceivedFundsEntity): Promise<string> {
  const held = funds.returnedBy === null && funds.assignedPaymentId === null && funds.kind !== 'unreadable';
  if (held && (await isMoneyOfSeveralPayments(manager, funds.fundsId)))
    return 'Esta transferência nomeia vários pagamentos: o dinheiro não é de nenhum deles até que o operador o atribua ou devolva ao pagador.';
  if (held && funds.valuedCentavos === null)
    return 'O valor destes fundos em reais não é conhecido (tokens sem cotação): só o operador pode devolvê-los ao pagador.';
  return whyFundsNotHeld(funds);
}
