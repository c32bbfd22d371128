import { subscriptionCycleRetryScheduled, type PixCycleAttemptFailed } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { findPayment, findSubscription } from '../persistence';
import { subscriptionEventBody } from './shared/subscription-events';

/**
 * A cycle's debit failed and the adapter asked the PSP to try again (`next_attempt_on`): the merchant is told with
 * `subscription.cycle_retry_scheduled`. An attempt with no retry to come says nothing here: the cycle's payment fails
 * with `pix.charge.closed.v1` (cause `debit_failed`). Once per event (inbox).
 */
export function announceCycleRetry(
  uow: UnitOfWork,
  event: PixCycleAttemptFailed,
  context: MessageContext,
): Promise<void> {
  return uow.once(context, async (tx) => {
    if (event.next_attempt_on === null) return;
    const subscription = await findSubscription(tx.manager, event.subscription_id);
    const payment = await findPayment(tx.manager, event.payment_id);
    if (!subscription || payment?.subscriptionId !== subscription.id || payment.cycle == null) {
      context.logger.warn(
        { subscription_id: event.subscription_id, payment_id: event.payment_id },
        'failed attempt of no known cycle',
      );
      return;
    }
    const body = {
      ...subscriptionEventBody(subscription),
      retry: {
        payment_id: payment.id,
        cycle: payment.cycle,
        attempt: event.attempt,
        reason_code: event.reason_code,
        next_attempt_on: event.next_attempt_on,
      },
    };
    await tx.emit(subscriptionCycleRetryScheduled, body, { messageId: body.event_id });
  });
}
