import type { Event, Gateway, Refund } from '@gateway/sdk';

export interface TimelineEntry {
  at: string;
  type: Event['type'];
  eventId: string;
}

/**
 * A payment's events, oldest first, and its refunds: the public API lists the events of one payment (its own and its
 * refunds'), so the timeline is whole however many events the business has.
 */
export async function paymentTimeline(
  api: Gateway,
  paymentId: string,
): Promise<{ entries: TimelineEntry[]; refunds: Refund[] }> {
  const refunds = (await api.refunds.list(paymentId, { limit: 100 })).data;
  const entries: TimelineEntry[] = [];
  for await (const event of api.events.list({ payment_id: paymentId, limit: 100 }))
    entries.push({ at: event.created_at, type: event.type, eventId: event.id });
  return { entries: entries.sort((a, b) => a.at.localeCompare(b.at)), refunds };
}
