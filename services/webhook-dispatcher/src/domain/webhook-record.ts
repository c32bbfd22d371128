import type { Webhook, WebhookEventName } from '@gateway/contracts';

/** A webhook as the dispatcher stores it (the entity has this shape); its sealed secret never leaves. */
export interface StoredWebhook {
  id: string;
  businessId: string;
  url: string;
  events: WebhookEventName[];
  status: Webhook['status'];
  createdAt: Date;
  updatedAt: Date;
}

export function toWebhookRecord(webhook: StoredWebhook): Webhook {
  return {
    webhook_id: webhook.id,
    business_id: webhook.businessId,
    url: webhook.url,
    events: webhook.events,
    status: webhook.status,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}
