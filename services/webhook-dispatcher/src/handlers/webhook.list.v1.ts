import type { DataSource } from 'typeorm';
import { pageRequest, type ListWebhooks, type Page, type Webhook } from '@gateway/contracts';
import { pageReply } from '@gateway/messaging';
import { toWebhookRecord } from '../domain/webhook-record';
import { listWebhooksOf } from '../persistence';

/** The calling business's webhooks, newest first, a page at a time, never their secrets. */
export function handleListWebhooks(dataSource: DataSource) {
  return async (query: ListWebhooks): Promise<Page<Webhook>> => {
    const page = await listWebhooksOf(dataSource.manager, query.business_id, pageRequest(query));
    return pageReply(page, toWebhookRecord);
  };
}
