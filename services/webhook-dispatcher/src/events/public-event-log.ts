import type { DataSource } from 'typeorm';
import type { WebhookEventName } from '@gateway/contracts';
import { activeTraceHeaders } from '@gateway/observability';
import { serializeDeliveryBody, type WebhookEvent } from '../delivery/payload';
import { storeEventWithDeliveries } from '../persistence';

/**
 * Records a public event once, by its id: kept for the events API, and a delivery for each webhook subscribed to it
 * then, in one transaction. The body is serialized here, once: the API returns and every delivery sends those bytes.
 * A redelivery or an outbox replay of the same event finds it stored and adds nothing.
 */
export async function recordPublicEvent(dataSource: DataSource, event: WebhookEvent): Promise<number> {
  const body = serializeDeliveryBody(event).toString('utf8');
  return dataSource.transaction((manager) =>
    storeEventWithDeliveries(manager, {
      id: event.id,
      businessId: event.businessId,
      type: event.type as WebhookEventName,
      body,
      traceContext: activeTraceHeaders(),
    }),
  );
}
