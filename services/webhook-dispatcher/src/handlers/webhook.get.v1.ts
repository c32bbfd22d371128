import type { DataSource } from 'typeorm';
import type { GetWebhook, Webhook } from '@gateway/contracts';
import { toWebhookRecord } from '../domain/webhook-record';
import { findOwnWebhook } from '../application/shared/find-own-webhook';

/** One of the calling business's webhooks, without its secret; another business's or a deleted one is NOT_FOUND. */
export function handleGetWebhook(dataSource: DataSource) {
  return async (query: GetWebhook): Promise<Webhook> =>
    toWebhookRecord(await findOwnWebhook(dataSource.manager, query.business_id, query.webhook_id));
}
