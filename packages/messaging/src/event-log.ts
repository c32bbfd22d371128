import type { DataSource } from 'typeorm';
import type { EventLogPage, ReadEventLog } from '@gateway/contracts';

interface LogRow {
  position: string;
  name: string;
  payload: Record<string, unknown>;
  recorded_at: Date;
  settled: boolean;
}

/**
 * A page of this service's event log: its outbox rows after `after_position`, in position order, published or not
 * (published rows are kept for the relay's retention, seven days). Positions come from a sequence taken when a row is
 * inserted, so a row committed later than the next one is not visible yet when that one is: the page stops at the
 * first row younger than `settled_seconds` (the owner's clock), and a reader that only moves past what it was
 * answered never steps over a row that commits within that time (docs/adr/0040-webhook-event-log-reconciliation.md).
 */
export async function readEventLog(dataSource: DataSource, request: ReadEventLog): Promise<EventLogPage> {
  const rows: LogRow[] = await dataSource.query(
    `SELECT seq::text AS position, name, envelope->'payload' AS payload, created_at AS recorded_at,
            created_at <= now() - make_interval(secs => $3) AS settled
       FROM outbox WHERE seq > $1::bigint ORDER BY seq LIMIT $2`,
    [request.after_position, request.limit, request.settled_seconds],
  );
  const young = rows.findIndex((row) => !row.settled);
  const settled = young === -1 ? rows : rows.slice(0, young);
  const names = new Set(request.names);
  return {
    entries: settled
      .filter((row) => names.has(row.name))
      .map((row) => ({
        position: row.position,
        name: row.name,
        payload: row.payload,
        recorded_at: row.recorded_at.toISOString(),
      })),
    next_position: settled.at(-1)?.position ?? request.after_position,
    has_more: settled.length === request.limit,
  };
}
