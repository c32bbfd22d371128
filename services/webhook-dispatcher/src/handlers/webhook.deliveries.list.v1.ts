import type { DataSource } from 'typeorm';
import type { ListWebhookDeliveries, WebhookDelivery } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { findOwnWebhook } from '../application/shared/find-own-webhook';
import { listDeliveriesOf } from '../persistence';

/** The cursor is opaque to callers: the position (insertion sequence) of the last delivery of the previous page. */
function encodeCursor(seq: string): string {
  return Buffer.from(seq, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string | null): string | null {
  if (cursor === null) return null;
  const seq = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[1-9][0-9]{0,17}$/.test(seq)) throw new CommandError('INVALID_FIELDS', 'Campos inválidos: cursor.');
  return seq;
}

/** A webhook's deliveries, newest first, each with its attempts, a page at a time. A read: no inbox needed. */
export function handleListWebhookDeliveries(dataSource: DataSource) {
  return async (
    query: ListWebhookDeliveries,
  ): Promise<{ data: WebhookDelivery[]; next_cursor: string | null }> => {
    const before = decodeCursor(query.cursor);
    const webhook = await findOwnWebhook(dataSource.manager, query.business_id, query.webhook_id);
    const page = await listDeliveriesOf(dataSource.manager, webhook.id, {
      beforeSeq: before,
      limit: query.limit,
    });
    const last = page.rows[page.rows.length - 1];
    return {
      data: page.rows.map((row) => ({
        delivery_id: row.id,
        event_id: row.event_id,
        event_type: row.event_type,
        status: row.status,
        attempts: row.attempts.map((attempt) => ({
          attempted_at: attempt.attempted_at.toISOString(),
          status_code: attempt.status_code,
          latency_ms: attempt.latency_ms,
          error: attempt.error,
          response_body: attempt.response_body,
        })),
        next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
        created_at: row.created_at.toISOString(),
      })),
      next_cursor: page.hasMore && last ? encodeCursor(last.seq) : null,
    };
  };
}
