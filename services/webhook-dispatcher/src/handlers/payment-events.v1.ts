import type { DataSource } from 'typeorm';
import { splitName, type PaymentEventPayload, type WebhookEventName } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { recordPublicEvent } from '../application/record-public-event';
import { paymentWebhookEvent } from '../domain/payload';

/**
 * Handles `payment.created/confirmed/expired/failed/cancelled.v1`: the event is kept for the events API and becomes
 * one delivery per webhook of the business subscribed to its public name, once (the event id deduplicates).
 */
export function handlePaymentEvent(dataSource: DataSource, onDeliveriesCreated: () => void) {
  return async (event: PaymentEventPayload, context: MessageContext): Promise<void> => {
    const type = splitName(context.envelope.name).type as WebhookEventName;
    const { deliveries } = await recordPublicEvent(dataSource, paymentWebhookEvent(type, event));
    if (deliveries > 0) onDeliveriesCreated();
  };
}
