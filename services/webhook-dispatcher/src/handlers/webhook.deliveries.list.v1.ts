import type { DataSource } from 'typeorm';
import type { DeliveryAttempt, ListWebhookDeliveries, WebhookDelivery } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import type { DeliveryStatus } from '../persistence';
import { findOwnWebhook } from './own-webhook';

interface DeliveryRow {
  id: string;
  seq: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  next_attempt_at: Date | null;
  created_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

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
export function handleListDeliveries(dataSource: DataSource) {
  return async (
    query: ListWebhookDeliveries,
  ): Promise<{ data: WebhookDelivery[]; next_cursor: string | null }> => {
    const before = decodeCursor(query.cursor);
    const webhook = await findOwnWebhook(dataSource.manager, query.business_id, query.webhook_id);
    const rows: DeliveryRow[] = await dataSource.query(
      `SELECT id, seq, event_id, event_type, status, next_attempt_at, created_at
         FROM deliveries
        WHERE webhook_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
        ORDER BY seq DESC
        LIMIT $3`,
      [webhook.id, before, query.limit + 1],
    );
    const page = rows.slice(0, query.limit);
    const attempts: AttemptRow[] = await dataSource.query(
      `SELECT delivery_id, attempted_at, status_code, latency_ms, error, response_body
         FROM delivery_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY id`,
      [page.map((row) => row.id)],
    );
    const attemptsByDelivery = new Map<string, DeliveryAttempt[]>();
    for (const attempt of attempts) {
      const list = attemptsByDelivery.get(attempt.delivery_id) ?? [];
      list.push({
        attempted_at: attempt.attempted_at.toISOString(),
        status_code: attempt.status_code,
        latency_ms: attempt.latency_ms,
        error: attempt.error,
        response_body: attempt.response_body,
      });
      attemptsByDelivery.set(attempt.delivery_id, list);
    }
    const last = page[page.length - 1];
    return {
      data: page.map((row) => ({
        delivery_id: row.id,
        event_id: row.event_id,
        event_type: row.event_type,
        status: row.status,
        attempts: attemptsByDelivery.get(row.id) ?? [],
        next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
        created_at: row.created_at.toISOString(),
      })),
      next_cursor: rows.length > query.limit && last ? encodeCursor(last.seq) : null,
    };
  };
}
