import type { DataSource } from 'typeorm';
import { newPublicId, type WebhookEventName } from '@gateway/contracts';
import { activeTraceHeaders } from '@gateway/observability';
import { paymentOfEvent, serializeDeliveryBody, type WebhookEvent } from '../domain/payload';
import { insertEventWithDeliveries } from '../persistence';

/** Delivery ids made ahead for one event: more than most businesses' webhooks subscribed to one type. */
const DELIVERY_IDS_AHEAD = 4;

/**
 * Records a public event once, by its id: kept for the events API, and a pending delivery, due now, for each active
 * webhook of its business subscribed to it then, in one statement; resolves whether it was new and how many
 * deliveries it made. The body is serialized here, once: the API returns and every delivery sends those bytes. A
 * redelivery or an outbox replay of the same event finds it stored and adds nothing.
 */
export async function recordPublicEvent(
  dataSource: DataSource,
  event: WebhookEvent,
): Promise<{ recorded: boolean; deliveries: number }> {
  const stored = {
    id: event.id,
    businessId: event.businessId,
    type: event.type as WebhookEventName,
    paymentId: paymentOfEvent(event),
    body: serializeDeliveryBody(event).toString('utf8'),
  };
  // The trace the event came in (the payment's): each delivery's attempts are spans in it.
  const traceContext = activeTraceHeaders();
  let idsAhead = DELIVERY_IDS_AHEAD;
  for (;;) {
    const ids = Array.from({ length: idsAhead }, () => newPublicId('dlv'));
    const outcome = await insertEventWithDeliveries(dataSource.manager, stored, { ids, traceContext });
    // More subscribed webhooks than ids: nothing was stored; again with enough (and a few more, should one be added
    // meanwhile).
    if (outcome.subscribed <= idsAhead) return { recorded: outcome.recorded, deliveries: outcome.deliveries };
    idsAhead = outcome.subscribed + DELIVERY_IDS_AHEAD;
  }
}
