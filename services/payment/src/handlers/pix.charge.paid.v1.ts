import type { PixChargePaid } from '@gateway/contracts';
import type { MessageContext, Transaction, UnitOfWork } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';
import { isOpen } from '../domain/payment-status';
import { decidePixSettlement } from '../domain/settlement';
import {
  isTransferRecorded,
  lockPayment,
  recordReceivedFunds,
  transitionPayment,
  type PaymentEntity,
} from '../persistence';
import { recordLateFunds } from './late-funds';

/** A PIX the charge of a payment received, as pix.charge.paid.v1 reports it or pix.charge.closed.v1 lists it. */
export interface ReceivedPix {
  paymentId: string;
  endToEndId: string;
  amountCentavos: number;
}

/**
 * What one PIX does to its payment, under the payment's row lock (`payment` as locked, null if unknown): the full
 * amount pays it; less is recorded as partial; after the end, late funds. Each endToEndId counts once per payment
 * (the received_funds key), so the same PIX learnt twice changes nothing the second time.
 */
export async function applyReceivedPix(
  tx: Transaction,
  payment: PaymentEntity | null,
  pix: ReceivedPix,
  logger: Logger,
): Promise<void> {
  // Already counted: it paid the payment, or is on record (a partial the closure reports again must not pay an
  // amount changed since).
  if (payment?.transactionId === pix.endToEndId) return;
  if (await isTransferRecorded(tx.manager, pix.paymentId, pix.endToEndId)) return;
  const funds = {
    paymentId: pix.paymentId,
    rail: 'pix' as const,
    railReference: pix.endToEndId,
    amountCentavos: pix.amountCentavos,
    amountBaseUnits: null,
  };
  const decision = decidePixSettlement({
    paymentIsOpen: payment !== null && isOpen(payment.status),
    expectedCentavos: payment?.amountCentavos ?? 0,
    receivedCentavos: pix.amountCentavos,
  });
  if (!payment || decision.kind === 'late') {
    await recordLateFunds(tx.manager, logger, funds, payment?.status ?? null);
    return;
  }
  if (decision.kind === 'partial') {
    if (await recordReceivedFunds(tx.manager, { ...funds, kind: 'partial' }))
      logger.warn(
        { payment_id: payment.id, expected: payment.amountCentavos, received: pix.amountCentavos },
        'partial PIX received: payment stays open',
      );
    return;
  }
  const paid = await transitionPayment(tx, payment.id, { status: 'paid', transactionId: pix.endToEndId });
  if (paid) Object.assign(payment, paid);
  if (decision.excessCentavos > 0) {
    await recordReceivedFunds(tx.manager, {
      ...funds,
      kind: 'excess',
      amountCentavos: decision.excessCentavos,
    });
  }
}

/** A PIX arrived for the payment's charge: decided under the payment's row lock (see applyReceivedPix). */
export function handlePixChargePaid(uow: UnitOfWork) {
  return async (event: PixChargePaid, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const payment = await lockPayment(tx.manager, event.payment_id);
      await applyReceivedPix(
        tx,
        payment,
        {
          paymentId: event.payment_id,
          endToEndId: event.end_to_end_id,
          amountCentavos: event.amount_centavos,
        },
        context.logger,
      );
    });
}
