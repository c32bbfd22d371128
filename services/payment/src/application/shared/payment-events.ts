import { newPublicId } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { toRecord } from '../../domain/payment-record';
import { eventNameFor, paymentEvents, type PaymentEventName } from '../../domain/payment-status';
import { moveToFinalStatus, type FinalTransition, type PaymentEntity } from '../../persistence';
import { recordPaymentEvent } from './payment-metrics';

// What every use case that changes a payment's status shares: the change and its `payment.*` event commit together
// (the event goes to the outbox of the same transaction), and the change is counted only once that commits.

/** Writes the `payment.*` event `event` for the payment as it is now into the outbox of `tx`; counted once `tx` commits. */
export async function emitPaymentEvent(
  tx: Transaction,
  event: PaymentEventName,
  payment: PaymentEntity,
): Promise<void> {
  const eventId = newPublicId('evt');
  await tx.emit(
    paymentEvents[event],
    {
      event_id: eventId,
      business_id: payment.businessId,
      occurred_at: new Date().toISOString(),
      payment: toRecord(payment),
    },
    { messageId: eventId },
  );
  tx.afterCommit(() => recordPaymentEvent(event, payment));
}

/**
 * Moves an open payment to a final status and emits the event that transition produces, in `tx`. Null (and no event)
 * when the payment was no longer open: a concurrent transition won, and emitted its own.
 */
export async function transitionPayment(
  tx: Transaction,
  paymentId: string,
  change: FinalTransition,
): Promise<PaymentEntity | null> {
  const payment = await moveToFinalStatus(tx.manager, paymentId, change);
  if (payment) await emitPaymentEvent(tx, eventNameFor(change.status), payment);
  return payment;
}
