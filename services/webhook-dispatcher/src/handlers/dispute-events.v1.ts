import type { DataSource } from 'typeorm';
import { splitName, type DisputeEventPayload, type WebhookEventName } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { recordPublicEvent } from '../application/record-public-event';
import { disputeWebhookEvent } from '../domain/payload';

/** Handles `dispute.created/closed.v1` as payment events are handled: kept, and delivered to subscribers once. */
export function handleDisputeEvent(dataSource: DataSource, onDeliveriesCreated: () => void) {
  return async (event: DisputeEventPayload, context: MessageContext): Promise<void> => {
    const type = splitName(context.envelope.name).type as WebhookEventName;
    const { deliveries } = await recordPublicEvent(dataSource, disputeWebhookEvent(type, event));
    if (deliveries > 0) onDeliveriesCreated();
  };
}
