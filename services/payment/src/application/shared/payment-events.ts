import { newPublicId, paymentChanged } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { toRecord, toView } from '../../domain/payment-record';
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
  await tx.emit(paymentEvents[event], ...eventOf(payment, { payment: toRecord(payment) }));
  tx.afterCommit(() => recordPaymentEvent(event, payment));
}

/**
 * Writes the internal `payment.changed.v1` for an open payment's change (amount, metadata) into the outbox of `tx`: no
 * public event announces it, and the gateway's copy learns it from this one even if the change's answer never reaches it.
 */
export async function emitPaymentChanged(tx: Transaction, payment: PaymentEntity): Promise<void> {
  await tx.emit(paymentChanged, ...eventOf(payment, toView(payment)));
}

/** A payment event's payload (its id, business and time around `body`) and the outbox options keyed by its id. */
function eventOf<B>(payment: PaymentEntity, body: B) {
  const eventId = newPublicId('evt');
  const payload = {
    event_id: eventId,
    business_id: payment.businessId,
    occurred_at: new Date().toISOString(),
    ...body,
  };
  return [payload, { messageId: eventId }] as const;
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
