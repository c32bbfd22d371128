import { In, type DataSource } from 'typeorm';
import {
  changeCryptoRequestAmount,
  changePixChargeAmount,
  type CryptoInstructions,
  type PaymentView,
  type PixInstructions,
  type UpdatePayment,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type Transaction, type UnitOfWork } from '@gateway/messaging';
import { computeFee } from '../domain/fee';
import { toView } from '../domain/payment-record';
import { invalidStatusMessage, isOpen, OPEN_STATUSES } from '../domain/payment-status';
import {
  amountChangeCommitted,
  claimAmountChange,
  findFeeRule,
  findPayment,
  holdsAmountChange,
  PaymentEntity,
  recordReceivedFunds,
  releaseAmountChange,
  type FeeRuleEntity,
} from '../persistence';
import type { Rails } from '../rails';

export interface UpdatePaymentDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  rails: Rails;
  /** How long an amount change holds its claim on the payment: longer than its rail call can take. */
  amountChangeClaimMs: number;
}

/** What the rail made for the new amount. */
interface NewInstructions {
  externalId: string;
  instructions: PixInstructions | CryptoInstructions;
  /** Crypto: the request the change replaced and what it had received. */
  superseded?: { reference: string; received_base_units: string };
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
export function handleUpdatePayment(deps: UpdatePaymentDeps) {
  return async (command: UpdatePayment, context: MessageContext): Promise<PaymentView> => {
    const messageId = context.envelope.id;
    const current = await findPayment(deps.dataSource.manager, command.payment_id, command.business_id);
    if (!current) throw notFound();
    const changesAmount =
      command.amount_centavos !== undefined &&
      command.amount_centavos !== current.amountCentavos &&
      !(await amountChangeCommitted(deps.dataSource.manager, current.id, messageId));
    if (!changesAmount) return deps.uow.once(context, (tx) => commit(tx, command, context, null));
    if (!isOpen(current.status))
      throw new CommandError('INVALID_STATUS', invalidStatusMessage(current.status));
    const rule = await feeRuleOf(deps, current);
    const amount = command.amount_centavos as number;
    if (!(await claimAmountChange(deps.dataSource.manager, current, messageId, deps.amountChangeClaimMs))) {
      const now = await findPayment(deps.dataSource.manager, current.id);
      if (now && !isOpen(now.status))
        throw new CommandError('INVALID_STATUS', invalidStatusMessage(now.status));
      throw busy();
    }
    const made = await newInstructions(deps, current, amount, context).catch(async (err: unknown) => {
      // A refusal is final: the claim goes. A rail that did not answer may still make the change: the claim stays
      // until it runs out, so no other change races this one at the rail.
      if (err instanceof CommandError && err.code !== 'SERVICE_UNAVAILABLE')
        await releaseAmountChange(deps.dataSource.manager, current.id, messageId, { committed: false });
      throw err;
    });
    return deps.uow.once(context, (tx) =>
      commit(tx, command, context, { amount, feeCentavos: computeFee(amount, rule).feeCentavos, made }),
    );
  };
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

async function newInstructions(
  deps: UpdatePaymentDeps,
  payment: PaymentEntity,
  amount: number,
  context: MessageContext,
): Promise<NewInstructions> {
  if (payment.method === 'pix') {
    const { txid, ...instructions } = await deps.rails.call(
      changePixChargeAmount,
      { payment_id: payment.id, amount_centavos: amount },
      context,
      'change-amount',
    );
    return { externalId: txid, instructions };
  }
  const { reference, superseded, ...instructions } = await deps.rails.call(
    changeCryptoRequestAmount,
    { payment_id: payment.id, business_name: payment.businessName, amount_centavos: amount },
    context,
    'change-amount',
  );
  return { externalId: reference, instructions, superseded };
}

/** The short transaction that writes the change, under the payment's row lock, if the payment is still open. */
async function commit(
  tx: Transaction,
  command: UpdatePayment,
  context: MessageContext,
  amountChange: { amount: number; feeCentavos: number; made: NewInstructions } | null,
): Promise<PaymentView> {
  const payment = await tx.manager.findOne(PaymentEntity, {
    where: { id: command.payment_id, businessId: command.business_id },
    lock: { mode: 'pessimistic_write' },
  });
  if (!payment) throw notFound();
  if (!isOpen(payment.status)) throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
  if (amountChange) {
    // The claim ran out while this change waited (the process stalled) and another change may have called the rail.
    if (!(await holdsAmountChange(tx.manager, payment.id, context.envelope.id))) throw busy();
    const { made } = amountChange;
    // What the replaced request had received stays the payment's: on record, and it makes a later expiry UNDERPAID.
    if (made.superseded && BigInt(made.superseded.received_base_units) > 0n) {
      await recordReceivedFunds(tx.manager, {
        paymentId: payment.id,
        kind: 'partial',
        rail: 'crypto',
        railReference: made.superseded.reference,
        amountCentavos: null,
        amountBaseUnits: made.superseded.received_base_units,
      });
    }
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
  const result = await tx.manager.update(
    PaymentEntity,
    { id: payment.id, status: In([...OPEN_STATUSES]), version: payment.version - 1 },
    {
      amountCentavos: payment.amountCentavos,
      feeCentavos: payment.feeCentavos,
      externalId: payment.externalId,
      instructions: payment.instructions,
      metadata: payment.metadata,
      updatedAt: payment.updatedAt,
      version: payment.version,
    },
  );
  if (result.affected !== 1) throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
  // PIX always shows its (possibly new) code; crypto only shows instructions when a new address was made.
  return toView(payment, payment.method === 'pix' || amountChange !== null);
}
