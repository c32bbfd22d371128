import type { DataSource } from 'typeorm';
import {
  splitName,
  type CycleRetry,
  type SubscriptionEventPayload,
  type WebhookEventName,
} from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { recordPublicEvent } from '../application/record-public-event';
import { subscriptionWebhookEvent } from '../domain/payload';

/** Handles `subscription.*.v1` as payment events are handled: kept, and delivered to subscribers once. */
export function handleSubscriptionEvent(dataSource: DataSource, onDeliveriesCreated: () => void) {
  return async (
    event: SubscriptionEventPayload & { retry?: CycleRetry },
    context: MessageContext,
  ): Promise<void> => {
    const type = splitName(context.envelope.name).type as WebhookEventName;
    const { deliveries } = await recordPublicEvent(dataSource, subscriptionWebhookEvent(type, event));
    if (deliveries > 0) onDeliveriesCreated();
  };
}
