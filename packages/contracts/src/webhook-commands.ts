import Joi from 'joi';
import { defineCommand } from './message';
import { businessId, isoDate } from './common';

export const webhookEventNames = [
  'payment.created',
  'payment.confirmed',
  'payment.expired',
  'payment.failed',
] as const;
export type WebhookEventName = (typeof webhookEventNames)[number];

export interface Webhook {
  webhook_id: string;
  business_id: string;
  url: string;
  events: WebhookEventName[];
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}
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
  events: WebhookEventName[];
}
/** The result carries the signing secret: the only time it leaves the dispatcher. */
export const createWebhook = defineCommand<CreateWebhook, Webhook & { secret: string }>(
  'webhook.create.v1',
  'webhook-dispatcher',
  Joi.object({
    business_id: businessId.required(),
    url: Joi.string().max(2000).required(),
    events: Joi.array()
      .items(Joi.valid(...webhookEventNames))
      .min(1)
      .required(),
  }),
  (webhookSchema as Joi.ObjectSchema).keys({ secret: Joi.string().required() }),
);

export const deleteWebhook = defineCommand<{ business_id: string; webhook_id: string }, { deleted: true }>(
  'webhook.delete.v1',
  'webhook-dispatcher',
  Joi.object({ business_id: businessId.required(), webhook_id: Joi.string().max(200).required() }),
  Joi.object({ deleted: Joi.valid(true).required() }),
);
