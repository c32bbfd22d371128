import type { DataSource } from 'typeorm';
import type { PaymentView, UpdatePayment } from '@gateway/contracts';
import { CommandError, type MessageContext, type Transaction, type UnitOfWork } from '@gateway/messaging';
import type { RailAmountChange, Rails } from '../clients';
import { computeFee } from '../domain/fee';
import { fundsRecord } from '../domain/funds';
import { isDueDatePayment, toView } from '../domain/payment-record';
import { invalidStatusMessage, isOpen } from '../domain/payment-status';
import {
  amountChangeCommitted,
  claimAmountChange,
  findFeeRule,
  findPayment,
  holdsAmountChange,
  lockPayment,
  releaseAmountChange,
  saveOpenPaymentChange,
  type FeeRuleEntity,
  type PaymentEntity,
} from '../persistence';
import { keepReceivedFunds } from './shared/received-funds-events';
import { emitPaymentChanged } from './shared/payment-events';

export interface UpdatePaymentDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  /** How long an amount change holds its claim on the payment: longer than its rail call can take. */
  amountChangeClaimMs: number;
}

const busy = () =>
  new CommandError(
    'SERVICE_UNAVAILABLE',
    'Outra alteração deste pagamento está em andamento. Tente novamente em instantes.',
  );
const notFound = () => new CommandError('NOT_FOUND', 'Pagamento não encontrado.');

/**
 * Changes amount and/or metadata of an open payment. No transaction or lock is held while the rail makes the new
 * instructions: the change is claimed on the payment (one at a time), the rail is called, and the outcome commits in
 * a short transaction under the row lock, only if the payment is still open: one that became final meanwhile (paid,
 * expired) is never changed and the change is refused with INVALID_STATUS. The rail itself refuses (INVALID_STATUS)
 * an amount change once the window has passed, so an expiring payment is never reopened.
 */
export async function changeOpenPayment(
  deps: UpdatePaymentDeps,
  command: UpdatePayment,
  context: MessageContext,
): Promise<PaymentView> {
  const messageId = context.envelope.id;
  const current = await findPayment(deps.dataSource.manager, command.payment_id, command.business_id);
  if (!current) throw notFound();
  const changesAmount =
    command.amount_centavos !== undefined &&
    command.amount_centavos !== current.amountCentavos &&
    !(await amountChangeCommitted(deps.dataSource.manager, current.id, messageId));
  if (!changesAmount) return deps.uow.once(context, (tx) => commit(tx, command, context, deps.rails, null));
  if (!isOpen(current.status)) throw new CommandError('INVALID_STATUS', invalidStatusMessage(current.status));
  // A due-date charge's amount is the base of its rules, which the payer may have read already: it does not change
  // (cancel it and create another).
  if (isDueDatePayment(current))
    throw new CommandError(
      'INVALID_FIELDS',
      'O valor de um pagamento com vencimento não muda: cancele-o e crie outro. Campos inválidos: amount.',
    );
  const rule = await feeRuleOf(deps, current);
  const amount = command.amount_centavos as number;
  if (!(await claimAmountChange(deps.dataSource.manager, current, messageId, deps.amountChangeClaimMs))) {
    const now = await findPayment(deps.dataSource.manager, current.id);
    if (now && !isOpen(now.status))
      throw new CommandError('INVALID_STATUS', invalidStatusMessage(now.status));
    throw busy();
  }
  const rail = deps.rails.of(current.method);
  const made = await rail.changeAmount(current, amount, context).catch(async (err: unknown) => {
    // A refusal is final: the claim goes. A rail that did not answer may still make the change: the claim stays
    // until it runs out, so no other change races this one at the rail.
    if (err instanceof CommandError && err.code !== 'SERVICE_UNAVAILABLE')
      await releaseAmountChange(deps.dataSource.manager, current.id, messageId, { committed: false });
    throw err;
  });
  return deps.uow.once(context, (tx) =>
    commit(tx, command, context, deps.rails, {
      amount,
      feeCentavos: computeFee(amount, rule).feeCentavos,
      made,
    }),
  );
}

async function feeRuleOf(deps: UpdatePaymentDeps, payment: PaymentEntity): Promise<FeeRuleEntity> {
  const rule = await findFeeRule(deps.dataSource.manager, payment.businessId, payment.method);
  if (!rule) {
    throw new CommandError(
      'NO_FEE_RULE',
      `Não há regra de tarifa configurada para o método de pagamento ${payment.method}.`,
    );
  }
  return rule;
}

/** The short transaction that writes the change, under the payment's row lock, if the payment is still open. */
async function commit(
  tx: Transaction,
  command: UpdatePayment,
  context: MessageContext,
  rails: Rails,
  amountChange: { amount: number; feeCentavos: number; made: RailAmountChange } | null,
): Promise<PaymentView> {
  const payment = await lockPayment(tx.manager, command.payment_id, command.business_id);
  if (!payment) throw notFound();
  if (!isOpen(payment.status)) throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
  if (amountChange) {
    // The claim ran out while this change waited (the process stalled) and another change may have called the rail.
    if (!(await holdsAmountChange(tx.manager, payment.id, context.envelope.id))) throw busy();
    const { made } = amountChange;
    // What the replaced request had received stays the payment's: on record, and it makes a later expiry UNDERPAID.
    if (made.superseded) await keepReceivedFunds(tx, fundsRecord(made.superseded, 'partial'), payment);
    Object.assign(payment, {
      amountCentavos: amountChange.amount,
      feeCentavos: amountChange.feeCentavos,
      externalId: made.externalId,
      instructions: made.instructions,
    });
    await releaseAmountChange(tx.manager, payment.id, context.envelope.id, { committed: true });
  }
  if (command.metadata !== undefined) payment.metadata = command.metadata;
  payment.updatedAt = new Date();
  payment.version += 1;
  if (!(await saveOpenPaymentChange(tx.manager, payment, payment.version - 1)))
    throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
  await emitPaymentChanged(tx, payment);
  return toView(payment, rails.of(payment.method).reshowsInstructions || amountChange !== null);
}
