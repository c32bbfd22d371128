import type { EntityManager } from 'typeorm';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { WebhookEntity } from './webhook.entity';

export type NewWebhook = Pick<
  WebhookEntity,
  'id' | 'businessId' | 'url' | 'events' | 'status' | 'secretSealed' | 'createdAt' | 'updatedAt' | 'deletedAt'
>;

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

/** The business's webhook by id, deleted or not; null when it has none by that id. */
export function findWebhookOf(
  manager: EntityManager,
  businessId: string,
  webhookId: string,
): Promise<WebhookEntity | null> {
  return manager.findOneBy(WebhookEntity, { id: webhookId, businessId });
}

/** A webhook known to exist (its id came from a committed write). */
export function getWebhook(manager: EntityManager, webhookId: string): Promise<WebhookEntity> {
  return manager.findOneByOrFail(WebhookEntity, { id: webhookId });
}

/** The webhook by id, whoever's, locked for update until the caller's transaction ends. */
export function lockWebhook(manager: EntityManager, webhookId: string): Promise<WebhookEntity | null> {
  return manager.findOne(WebhookEntity, { where: { id: webhookId }, lock: { mode: 'pessimistic_write' } });
}

export async function insertWebhook(manager: EntityManager, webhook: NewWebhook): Promise<void> {
  await manager.insert(WebhookEntity, manager.create(WebhookEntity, webhook));
}

/** Stores the new sealed secret; the one it replaces keeps signing for `overlapHours`, replacing any older one. */
export async function replaceWebhookSecret(
  manager: EntityManager,
  webhookId: string,
  secretSealed: string,
  overlapHours: number,
): Promise<void> {
  await manager.query(
    `UPDATE webhooks
        SET previous_secret_sealed = secret_sealed,
            previous_secret_until = now() + make_interval(hours => $3),
            secret_sealed = $2, updated_at = now()
      WHERE id = $1`,
    [webhookId, secretSealed, overlapHours],
  );
}

export async function markWebhookDeleted(manager: EntityManager, webhookId: string): Promise<void> {
  await manager.query(
    `UPDATE webhooks SET status = 'inactive', deleted_at = now(), updated_at = now() WHERE id = $1`,
    [webhookId],
  );
}

/** Makes an active webhook inactive (a deleted one stays as it is). */
export async function disableWebhook(manager: EntityManager, webhookId: string): Promise<void> {
  await manager.query(
    `UPDATE webhooks SET status = 'inactive', updated_at = now() WHERE id = $1 AND status = 'active'`,
    [webhookId],
  );
}
