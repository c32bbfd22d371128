import Joi from 'joi';
import { defineCommand } from './message';
import { businessId, isoDate, paymentId, publicId } from './common';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import { webhookEventNames, type WebhookEventName } from './public-api';

/** `evt_` + url-safe characters: a public event, the `id` (and Standard Webhooks `webhook-id`) of its deliveries. */
export const eventId = publicId('evt');

/** How long the events API keeps a business's events (docs/api.md#events); older ones are pruned. */
export const EVENT_RETENTION_DAYS = 30;

/** A public event exactly as its webhooks receive it: `data` is the payment or refund record, money in BRL. */
export interface PublicEvent {
  id: string;
  type: WebhookEventName;
  created_at: string;
  business_id: string;
  data: Record<string, unknown>;
}
const publicEventSchema = Joi.object<PublicEvent>({
  id: eventId.required(),
  type: Joi.valid(...webhookEventNames).required(),
  created_at: isoDate.required(),
  business_id: businessId.required(),
  data: Joi.object().unknown(true).required(),
});

export interface GetEvent {
  business_id: string;
  event_id: string;
}
export const getEvent = defineCommand<GetEvent, PublicEvent>(
  'event.get.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), event_id: eventId.required() }),
  publicEventSchema,
  ['NOT_FOUND'],
);

/**
 * A page of the business's events of the last EVENT_RETENTION_DAYS, newest first, optionally of one type and of one
 * payment (its own events and its refunds').
 */
export interface ListEvents extends PageQuery {
  business_id: string;
  type?: WebhookEventName;
  payment_id?: string;
}
export const listEvents = defineCommand<ListEvents, Page<PublicEvent>>(
  'event.list.v1',
  'webhook-dispatcher',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: eventId.allow(null),
    type: Joi.valid(...webhookEventNames),
    payment_id: paymentId,
  }),
  pageSchema(publicEventSchema),
  ['INVALID_FIELDS'],
);
