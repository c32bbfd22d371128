import type { PixChargePaid } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { isOpen } from '../domain/payment-status';
import { decidePixSettlement } from '../domain/settlement';
import { PaymentEntity, recordReceivedFunds, transitionPayment } from '../persistence';
import { recordLateFunds } from './late-funds';

/** A PIX arrived for the payment's charge: the full amount pays it; less is recorded; after the end, late funds. */
export function handlePixChargePaid(uow: UnitOfWork) {
  return async (event: PixChargePaid, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const payment = await tx.manager.findOne(PaymentEntity, {
        where: { id: event.payment_id },
        lock: { mode: 'pessimistic_write' },
      });
      if (payment?.transactionId === event.end_to_end_id) return;
      const funds = {
        paymentId: event.payment_id,
        rail: 'pix' as const,
        railReference: event.end_to_end_id,
        amountCentavos: event.amount_centavos,
        amountBaseUnits: null,
      };
      const decision = decidePixSettlement({
        paymentIsOpen: payment !== null && isOpen(payment.status),
        expectedCentavos: payment?.amountCentavos ?? 0,
        receivedCentavos: event.amount_centavos,
      });
      if (!payment || decision.kind === 'late') {
        await recordLateFunds(tx.manager, context.logger, funds, payment?.status ?? null);
        return;
      }
      if (decision.kind === 'partial') {
        await recordReceivedFunds(tx.manager, { ...funds, kind: 'partial' });
        context.logger.warn(
          { payment_id: payment.id, expected: payment.amountCentavos, received: event.amount_centavos },
          'partial PIX received: payment stays open',
        );
        return;
      }
      await transitionPayment(tx, payment.id, { status: 'paid', transactionId: event.end_to_end_id });
      if (decision.excessCentavos > 0) {
        await recordReceivedFunds(tx.manager, {
          ...funds,
          kind: 'excess',
          amountCentavos: decision.excessCentavos,
        });
      }
    });
}
