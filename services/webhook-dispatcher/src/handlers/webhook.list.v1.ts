import type { DataSource } from 'typeorm';
import { PAGE_LIMIT_DEFAULT, type ListWebhooks, type Page, type Webhook } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { toWebhookRecord } from '../domain/webhook-record';
import { listWebhooksOf } from '../persistence';

/** The calling business's webhooks, newest first, a page at a time, never their secrets. */
export function handleListWebhooks(dataSource: DataSource) {
  return async (query: ListWebhooks): Promise<Page<Webhook>> => {
    const page = await listWebhooksOf(dataSource.manager, query.business_id, {
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      startingAfter: query.starting_after ?? null,
    });
    if (!page) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: starting_after.');
    return { data: page.rows.map(toWebhookRecord), has_more: page.hasMore };
  };
}
