import type { PixRecurrenceChanged } from '@gateway/contracts';
import type { MessageContext, UnitOfWork } from '@gateway/messaging';
import { decideRecurrenceChange, todayOf } from '../domain/subscription';
import { lockSubscription, saveSubscription } from '../persistence';
import { emitSubscriptionEvent, wallToday } from './shared/subscription-events';
import { cancelCyclesNotYetDue } from './shared/subscription-cycles';

/**
 * What the PSP said of a recurrence's authorization, under the subscription's row lock: `authorized` activates it
 * (`subscription.activated`), `rejected` cancels it (by the payer, `authorization_rejected`), `cancelled` cancels it
 * with who did, `expired` expires it; an ended one, or a replay, changes nothing. Ending it cancels its open cycle not
 * yet due. Once per event (inbox). Answers whether a sandbox clock move waits on the subscription (it waited at a send
 * day for the payer's answer, which has now come): the caller resumes it.
 */
export async function applyRecurrenceChange(
  uow: UnitOfWork,
  event: PixRecurrenceChanged,
  context: MessageContext,
): Promise<boolean> {
  const changed = await uow.once(context, async (tx) => {
    const subscription = await lockSubscription(tx.manager, event.subscription_id);
    if (!subscription) {
      context.logger.warn({ subscription_id: event.subscription_id }, 'recurrence change of no subscription');
      return false;
    }
    const change = decideRecurrenceChange(subscription.status, event);
    if (!change) return false;
    subscription.status = change.status;
    if (change.status === 'active') {
      await saveSubscription(tx.manager, subscription);
      await emitSubscriptionEvent(tx, 'activated', subscription);
      return subscription.clockTarget !== null;
    }
    subscription.endedAt = new Date();
    subscription.nextCycle = null;
    subscription.nextDueDate = null;
    if (change.status === 'cancelled') {
      subscription.cancelledBy = change.cancelledBy;
      subscription.cancellationReason = change.reason;
      subscription.pspReasonCode = event.reason_code;
    }
    await saveSubscription(tx.manager, subscription);
    await emitSubscriptionEvent(tx, change.status, subscription);
    await cancelCyclesNotYetDue(tx, subscription, todayOf(subscription, wallToday()));
    return subscription.clockTarget !== null;
  });
  return changed === true;
}
