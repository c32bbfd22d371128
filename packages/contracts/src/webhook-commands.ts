import Joi from 'joi';
import { defineCommand } from './message';
import { boundedText, businessId, givenId, isoDate, publicId } from './common';
import {
  pageLimit,
  pageSchema,
  webhookDeliveriesCursor,
  webhookDeliveriesLimit,
  type Page,
  type PageQuery,
} from './pages';
import { webhookEventNames, type Webhook, type WebhookDelivery, type WebhookWithSecret } from './public-api';

/** `wh_` + url-safe characters. */
export const webhookId = publicId('wh');

const webhookSchema = Joi.object<Webhook>({
  webhook_id: Joi.string().required(),
  business_id: businessId.required(),
  url: Joi.string().required(),
  events: Joi.array()
    .items(Joi.valid(...webhookEventNames))
    .required(),
  status: Joi.valid('active', 'inactive').required(),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});

export interface CreateWebhook {
  business_id: string;
  url: string;
  /** Any strings: the dispatcher refuses names outside `webhookEventNames` with INVALID_FIELDS naming `events`. */
  events: string[];
}
/** The result carries the signing secret: the only time it leaves the dispatcher. */
export const createWebhook = defineCommand<CreateWebhook, WebhookWithSecret>(
  'webhook.create.v1',
  'webhook-dispatcher',
  Joi.object({
    business_id: businessId.required(),
    url: boundedText('url').required(),
    events: Joi.array().items(Joi.string().max(100)).max(20).required(),
  }),
  (webhookSchema as Joi.ObjectSchema).keys({ secret: Joi.string().required() }),
  ['MISSING_FIELDS', 'INVALID_FIELDS'],
);

/** One of the business's webhooks (never its secret); another business's, or a deleted one, is NOT_FOUND. */
export interface GetWebhook {
  business_id: string;
  webhook_id: string;
}
export const getWebhook = defineCommand<GetWebhook, Webhook>(
  'webhook.get.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), webhook_id: webhookId.required() }),
  webhookSchema,
  ['NOT_FOUND'],
);

/** A page of the business's webhooks (not deleted), newest first, after `starting_after`. Never their secrets. */
export interface ListWebhooks extends PageQuery {
  business_id: string;
}
export const listWebhooks = defineCommand<ListWebhooks, Page<Webhook>>(
  'webhook.list.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), limit: pageLimit, starting_after: webhookId.allow(null) }),
  pageSchema(webhookSchema),
  ['INVALID_FIELDS'],
);

/** How long, after a rotation, deliveries are signed with the replaced secret as well as the new one. */
export const WEBHOOK_SECRET_OVERLAP_HOURS = 24;

/** A new signing secret for the webhook, shown once; the replaced one keeps signing for the overlap. */
export interface RotateWebhookSecret {
  business_id: string;
  webhook_id: string;
}
export const rotateWebhookSecret = defineCommand<RotateWebhookSecret, { secret: string }>(
  'webhook.rotate-secret.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), webhook_id: webhookId.required() }),
  Joi.object({ secret: Joi.string().required() }),
  ['NOT_FOUND'],
);

export const deleteWebhook = defineCommand<{ business_id: string; webhook_id: string }, { deleted: true }>(
  'webhook.delete.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), webhook_id: givenId.required() }),
  Joi.object({ deleted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'FORBIDDEN'],
);

export interface ListWebhookDeliveries {
  business_id: string;
  webhook_id: string;
  limit: number;
  cursor: string | null;
}
export const listWebhookDeliveries = defineCommand<
  ListWebhookDeliveries,
  { data: WebhookDelivery[]; next_cursor: string | null }
>(
  'webhook.deliveries.list.v1',
  'webhook-dispatcher',
  Joi.object({
    business_id: businessId.required(),
    webhook_id: givenId.required(),
    limit: webhookDeliveriesLimit.required(),
    cursor: webhookDeliveriesCursor.allow(null).required(),
  }),
  Joi.object({
    data: Joi.array().items(Joi.object()).required(),
    next_cursor: Joi.string().allow(null).required(),
  }),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

export const retryWebhookDelivery = defineCommand<
  { business_id: string; webhook_id: string; delivery_id: string },
  { delivery_id: string; status: WebhookDelivery['status'] }
>(
  'webhook.delivery.retry.v1',
  'webhook-dispatcher',
  Joi.object({
    business_id: businessId.required(),
    webhook_id: givenId.required(),
    delivery_id: givenId.required(),
  }),
  Joi.object({ delivery_id: Joi.string().required(), status: Joi.string().required() }),
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/** Sends a signed `webhook.test` event to the endpoint now, outside the retry schedule. */
export const sendTestWebhook = defineCommand<
  { business_id: string; webhook_id: string },
  { event_id: string; status_code: number | null; error: string | null }
>(
  'webhook.test.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), webhook_id: givenId.required() }),
  Joi.object({
    event_id: Joi.string().required(),
    status_code: Joi.number().integer().allow(null).required(),
    error: Joi.string().allow(null).required(),
  }),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);
