import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { WebhookEntity } from './webhook.entity';

/** A page of the business's webhooks (deleted ones left out), newest first; undefined for a cursor not among them. */
export function listWebhooksOf(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<WebhookEntity> | undefined> {
  return newestCreatedPage(manager, WebhookEntity, { business_id: businessId }, page, (webhooks) =>
    webhooks.andWhere('listed.deleted_at IS NULL'),
  );
}
