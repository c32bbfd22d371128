import type { DataSource } from 'typeorm';
import { splitName, type PayoutEventPayload, type WebhookEventName } from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { recordPublicEvent } from '../application/record-public-event';
import { payoutWebhookEvent } from '../domain/payload';

/** Handles the ledger's `payout.paid/failed.v1` as payment events are handled: kept, and delivered to subscribers once. */
export function handlePayoutEvent(dataSource: DataSource, onDeliveriesCreated: () => void) {
  return async (event: PayoutEventPayload, context: MessageContext): Promise<void> => {
    const type = splitName(context.envelope.name).type as WebhookEventName;
    const { deliveries } = await recordPublicEvent(dataSource, payoutWebhookEvent(type, event));
    if (deliveries > 0) onDeliveriesCreated();
  };
}
