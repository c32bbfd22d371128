import type { PaymentEventPayload } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { nextSessionStatus, type PaymentOutcomeEvent } from '../domain/session-status';
import { SessionEntity } from '../persistence';

/**
 * Moves the session that started a payment to that payment's outcome, once per event; events of payments that no
 * checkout session started (API payments) change nothing, and a session that already ended keeps its status.
 */
export function handlePaymentOutcome(uow: UnitOfWork, event: PaymentOutcomeEvent) {
  return async (payload: PaymentEventPayload, context: MessageContext): Promise<void> =>
    uow.once(context, async (tx) => {
      const session = await tx.manager.findOne(SessionEntity, {
        where: { paymentId: payload.payment.payment_id },
        lock: { mode: 'pessimistic_write' },
      });
      if (!session) return;
      const next = nextSessionStatus(session.status, event);
      if (next === session.status) return;
      await tx.manager
        .createQueryBuilder()
        .update(SessionEntity)
        .set({ status: next, updatedAt: () => 'now()' })
        .where('id = :id AND status = :current', { id: session.id, current: session.status })
        .execute();
    });
}

/** A payment's creation says nothing about its session, which the start command already recorded (it reaches a queue
 * bound before the checkout service listed the outcomes it follows). */
export async function ignorePaymentCreated(): Promise<void> {}
