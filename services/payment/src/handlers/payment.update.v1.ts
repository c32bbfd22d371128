import { In } from 'typeorm';
import {
  changeCryptoRequestAmount,
  changePixChargeAmount,
  type PaymentView,
  type UpdatePayment,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { computeFee } from '../domain/fee';
import { toView } from '../domain/payment-record';
import { invalidStatusMessage, isOpen, OPEN_STATUSES } from '../domain/payment-status';
import { findFeeRule, PaymentEntity, recordReceivedFunds } from '../persistence';
import type { Rails } from '../rails';

export interface UpdatePaymentDeps {
  uow: UnitOfWork;
  rails: Rails;
}

/**
 * Changes amount and/or metadata of an open payment. The payment row stays locked while the rail makes the new
 * instructions, so a confirmation or closure arriving meanwhile waits and then sees the final amount. The rail
 * refuses (INVALID_STATUS) an amount change once the window has passed, so an expiring payment is never reopened.
 */
export function handleUpdatePayment(deps: UpdatePaymentDeps) {
  return async (command: UpdatePayment, context: MessageContext): Promise<PaymentView> =>
    deps.uow.once(context, async (tx) => {
      const payment = await tx.manager.findOne(PaymentEntity, {
        where: { id: command.payment_id, businessId: command.business_id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!payment) throw new CommandError('NOT_FOUND', 'Pagamento não encontrado.');
      if (!isOpen(payment.status))
        throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));

      const amountChanged =
        command.amount_centavos !== undefined && command.amount_centavos !== payment.amountCentavos;
      if (amountChanged) {
        const amount = command.amount_centavos as number;
        const rule = await findFeeRule(tx.manager, payment.businessId, payment.method);
        if (!rule) {
          throw new CommandError(
            'NO_FEE_RULE',
            `Não há regra de tarifa configurada para o método de pagamento ${payment.method}.`,
          );
        }
        payment.feeCentavos = computeFee(amount, rule).feeCentavos;
        payment.amountCentavos = amount;
        if (payment.method === 'pix') {
          const { txid, ...instructions } = await deps.rails.call(
            changePixChargeAmount,
            { payment_id: payment.id, amount_centavos: amount },
            context,
            'change-amount',
          );
          payment.externalId = txid;
          payment.instructions = instructions;
        } else {
          const { reference, superseded, ...instructions } = await deps.rails.call(
            changeCryptoRequestAmount,
            { payment_id: payment.id, business_name: payment.businessName, amount_centavos: amount },
            context,
            'change-amount',
          );
          // What the replaced request had received stays the payment's: on record, and it makes a later expiry
          // UNDERPAID.
          if (BigInt(superseded.received_base_units) > 0n) {
            await recordReceivedFunds(tx.manager, {
              paymentId: payment.id,
              kind: 'partial',
              rail: 'crypto',
              railReference: superseded.reference,
              amountCentavos: null,
              amountBaseUnits: superseded.received_base_units,
            });
          }
          payment.externalId = reference;
          payment.instructions = instructions;
        }
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
      if (result.affected !== 1)
        throw new CommandError('INVALID_STATUS', invalidStatusMessage(payment.status));
      // PIX always shows its (possibly new) code; crypto only shows instructions when a new address was made.
      return toView(payment, payment.method === 'pix' || amountChanged);
    });
}
