import {
  dateOfDay,
  newPublicId,
  saoPauloDay,
  subscriptionActivated,
  subscriptionCancelled,
  subscriptionCreated,
  subscriptionExpired,
  type MessageDefinition,
  type SubscriptionEventPayload,
} from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { toSubscriptionRecord } from '../../domain/subscription';
import type { SubscriptionEntity } from '../../persistence';

// What every use case that changes a subscription shares: its `subscription.*` event commits with the change.

const events = {
  created: subscriptionCreated,
  activated: subscriptionActivated,
  cancelled: subscriptionCancelled,
  expired: subscriptionExpired,
} satisfies Record<string, MessageDefinition<SubscriptionEventPayload>>;

/** Today in America/Sao_Paulo by the wall clock: every production subscription's today. */
export const wallToday = (): string => dateOfDay(saoPauloDay(new Date()));

/** The body of a subscription event for the subscription as it is now, with a new event id. */
export function subscriptionEventBody(subscription: SubscriptionEntity): SubscriptionEventPayload {
  return {
    event_id: newPublicId('evt'),
    business_id: subscription.businessId,
    occurred_at: new Date().toISOString(),
    subscription: toSubscriptionRecord(subscription, wallToday()),
  };
}

/** Writes the `subscription.*` event `event` for the subscription as it is now into the outbox of `tx`. */
export async function emitSubscriptionEvent(
  tx: Transaction,
  event: keyof typeof events,
  subscription: SubscriptionEntity,
): Promise<void> {
  const body = subscriptionEventBody(subscription);
  await tx.emit(events[event], body, { messageId: body.event_id });
}
