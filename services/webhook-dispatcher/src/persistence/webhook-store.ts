import type { EntityManager } from 'typeorm';
import { newestFirstPage, type Page, type PageRequest } from '@gateway/persistence';
import { WebhookEntity } from './webhook.entity';

/** A page of the business's webhooks (deleted ones left out), newest first; undefined for a cursor not among them. */
export function listWebhooksOf(
  manager: EntityManager,
  businessId: string,
  page: PageRequest,
): Promise<Page<WebhookEntity> | undefined> {
  const webhooks = manager
    .createQueryBuilder(WebhookEntity, 'webhook')
    .where('webhook.business_id = :businessId', { businessId })
    .andWhere('webhook.deleted_at IS NULL');
  return newestFirstPage(webhooks, { time: 'created_at', tiebreak: 'id', publicId: 'id' }, page);
}
