import { EVENT_RETENTION_DAYS, type PublicEvent } from '@gateway/contracts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The oldest creation time the events API still shows: what the purge has not reached yet is hidden all the same. */
export function retainedSince(now: Date): Date {
  return new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS);
}

/** The stored event as the API returns it: its delivery body, parsed. */
export function publicEventOf(event: { body: string }): PublicEvent {
  return JSON.parse(event.body) as PublicEvent;
}
