import type { DataSource } from 'typeorm';
import { newPublicId, type WebhookEventName } from '@gateway/contracts';
import { activeTraceHeaders } from '@gateway/observability';
import { paymentOfEvent, serializeDeliveryBody, type WebhookEvent } from '../domain/payload';
import { insertDelivery, insertEvent, webhooksSubscribedTo } from '../persistence';

/**
 * Records a public event once, by its id: kept for the events API, and a pending delivery, due now, for each active
 * webhook of its business subscribed to it then, in one transaction; resolves whether it was new and how many
 * deliveries it made. The body is
 * serialized here, once: the API returns and every delivery sends those bytes. A redelivery or an outbox replay of
 * the same event finds it stored and adds nothing.
 */
export async function recordPublicEvent(
  dataSource: DataSource,
  event: WebhookEvent,
): Promise<{ recorded: boolean; deliveries: number }> {
  const body = serializeDeliveryBody(event).toString('utf8');
  const type = event.type as WebhookEventName;
  return dataSource.transaction(async (manager) => {
    // The trace the event came in (the payment's): each delivery's attempts are spans in it.
    const traceContext = activeTraceHeaders();
    const paymentId = paymentOfEvent(event);
    if (!(await insertEvent(manager, { id: event.id, businessId: event.businessId, type, paymentId, body })))
      return { recorded: false, deliveries: 0 };
    let deliveries = 0;
    for (const webhook of await webhooksSubscribedTo(manager, event.businessId, type)) {
      const inserted = await insertDelivery(manager, {
        id: newPublicId('dlv'),
        webhookId: webhook.id,
        eventId: event.id,
        eventType: type,
        body,
        traceContext,
      });
      if (inserted) deliveries += 1;
    }
    return { recorded: true, deliveries };
  });
}
