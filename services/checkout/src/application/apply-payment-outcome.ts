import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { nextSessionStatus, type PaymentOutcomeEvent } from '../domain/session-status';
import { lockSessionOfPayment, moveSessionStatus } from '../persistence';

/**
 * Moves the session that started a payment to that payment's outcome, once per event; events of payments that no
 * checkout session started (API payments) change nothing, and a session that already ended keeps its status.
 */
export function applyPaymentOutcome(
  uow: UnitOfWork,
  paymentId: string,
  event: PaymentOutcomeEvent,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    const session = await lockSessionOfPayment(tx.manager, paymentId);
    if (!session) return;
    const next = nextSessionStatus(session.status, event);
    if (next === session.status) return;
    await moveSessionStatus(tx.manager, session.id, session.status, next);
  });
}
