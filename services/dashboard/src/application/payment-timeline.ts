import type { Event, Gateway, Refund } from '@gateway/sdk';

/**
 * How many of the business's newest events are read to find one payment's (the API filters events by type only): one
 * page, so a payment's page costs the business's API key three calls of its rate limit.
 */
export const TIMELINE_EVENTS_SCANNED = 100;

export interface TimelineEntry {
  at: string;
  type: Event['type'];
  eventId: string;
}

/**
 * A payment's events, oldest first, and its refunds. The public API lists events by business (and type), not by
 * payment: the newest TIMELINE_EVENTS_SCANNED are read and this payment's (and its refunds') kept.
 */
export async function paymentTimeline(
  api: Gateway,
  paymentId: string,
): Promise<{ entries: TimelineEntry[]; refunds: Refund[] }> {
  const refunds = (await api.refunds.list(paymentId, { limit: 100 })).data;
  const entries: TimelineEntry[] = [];
  let scanned = 0;
  for await (const event of api.events.list({ limit: 100 })) {
    if ((event.data as { payment_id?: string }).payment_id === paymentId)
      entries.push({ at: event.created_at, type: event.type, eventId: event.id });
    scanned += 1;
    if (scanned >= TIMELINE_EVENTS_SCANNED) break;
  }
  return { entries: entries.sort((a, b) => a.at.localeCompare(b.at)), refunds };
}
