import type { DataSource } from 'typeorm';
import { splitName, type RefundEventPayload, type WebhookEventName } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { recordPublicEvent } from '../application/record-public-event';
import { refundWebhookEvent } from '../domain/payload';

/** Handles `refund.succeeded/failed.v1` as payment events are handled: kept, and delivered to subscribers once. */
export function handleRefundEvent(dataSource: DataSource, onDeliveriesCreated: () => void) {
  return async (event: RefundEventPayload, context: MessageContext): Promise<void> => {
    const type = splitName(context.envelope.name).type as WebhookEventName;
    const { deliveries } = await recordPublicEvent(dataSource, refundWebhookEvent(type, event));
    if (deliveries > 0) onDeliveriesCreated();
  };
}
