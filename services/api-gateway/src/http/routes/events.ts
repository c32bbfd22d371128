import Joi from 'joi';
import {
  eventId,
  getEvent,
  paymentId,
  listEvents,
  pageSchema,
  webhookEventNames,
  type Page,
  type PublicEvent,
} from '@gateway/contracts';
import { defineOperation, json, pageOf, type AnswerOf, type Tag } from '../operation';
import { eventOf, eventRefund, eventPayment, payout } from '../openapi/response-schemas';
import { pageQuery } from '../validation';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const event = eventOf(
  Joi.string().valid(...webhookEventNames),
  Joi.alternatives().try(eventPayment, eventRefund, payout),
).id('Event');

export const eventsPage = pageQuery(eventId);
export const eventsFilter = Joi.object({
  type: Joi.string().valid(...webhookEventNames),
  payment_id: paymentId.description("Only this payment's events: its own and its refunds'."),
});

/**
 * The dispatcher answers an event as the body its webhooks received, stored as text and parsed back (`PublicEvent`:
 * its `data` is known only to be an object); it built that body from the payment and refund records the document
 * describes, so it is passed on as the answer's type.
 */
const storedEvents = (page: Page<PublicEvent>) => page as unknown as AnswerOf<'listEvents'>;
const storedEvent = (event: PublicEvent) => event as unknown as AnswerOf<'getEvent'>;

/** The document's group of this family's operations. */
export const eventsTag: Tag = {
  name: 'Events',
  description: 'The events of the last 30 days, as webhooks receive them.',
};

/** /v1/events: the business's events of the last 30 days, the same bodies its webhooks receive. */
export const eventOperations = [
  defineOperation({
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    tag: 'Events',
    area: 'api',
    scope: 'events:read',
    summary: "List the business's events of the last 30 days, newest first",
    query: [eventsPage, eventsFilter],
    // The filter before the page, as this route always checked them.
    checks: [eventsFilter, eventsPage],
    commands: [listEvents],
    cli: { command: 'events list', description: 'list events, newest first' },
    sdk: { method: 'events.list', description: "The business's events of the last 30 days." },
    answers: [json(200, 'A page of events, the same bodies webhooks receive.', pageSchema(event))],
    handle: async ({ query, businessId, send }) =>
      storedEvents(
        await send(listEvents, {
          business_id: businessId,
          ...pageOf(query),
          ...(query.type ? { type: query.type } : {}),
          ...(query.payment_id ? { payment_id: query.payment_id } : {}),
        }),
      ),
  }),
  defineOperation({
    method: 'get',
    path: '/v1/events/{event_id}',
    operationId: 'getEvent',
    tag: 'Events',
    area: 'api',
    scope: 'events:read',
    summary: 'Read an event',
    params: { event_id: 'evt' },
    commands: [getEvent],
    cli: { command: 'events get', description: 'read an event' },
    sdk: { method: 'events.get' },
    answers: [json(200, 'The event.', event)],
    handle: async ({ params, businessId, send }) =>
      storedEvent(await send(getEvent, { business_id: businessId, event_id: params.event_id })),
  }),
];
