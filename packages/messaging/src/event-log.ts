import type { DataSource } from 'typeorm';
import {
  EVERY_EVENT_NAME,
  publicEventNamesOf,
  type CommandDefinition,
  type EventLogPage,
  type ReadEventLog,
} from '@gateway/contracts';

interface LogRow {
  position: string;
  name: string;
  payload: Record<string, unknown>;
  recorded_at: Date;
  settled: boolean;
}

/**
 * The instant before which every row of the outbox is committed or rolled back, as PostgreSQL text (microseconds kept):
 * the start of the oldest transaction of this database still in progress that has written anything (it holds a
 * transaction id) or is running a statement (one whose insert has taken its position but not yet its transaction id),
 * or the start of this statement if there is none. The reading session itself is left out, and so are sessions of
 * other roles (the other services sharing the database, whose details this role may not see anyway): the writers of
 * the outbox are the service itself, under its own role.
 */
async function uncommittedHorizon(dataSource: DataSource): Promise<string> {
  const [row]: Array<{ horizon: string; tracked: string }> = await dataSource.query(
    `SELECT LEAST(statement_timestamp(), min(xact_start))::text AS horizon,
            current_setting('track_activities') AS tracked
       FROM pg_stat_activity
      WHERE datname = current_database() AND usename = current_user AND pid <> pg_backend_pid()
        AND backend_type = 'client backend'
        AND xact_start IS NOT NULL AND (backend_xid IS NOT NULL OR state = 'active')`,
  );
  // Without it every session's start reads NULL and nothing would hold the log back: refused, loudly (the reader's
  // read-failure alert), rather than answered on the settling time alone.
  if (row!.tracked !== 'on')
    throw new Error('track_activities is off: the event log cannot tell what is still open');
  return row!.horizon;
}

/**
 * A page of this service's event log: its outbox rows after `after_position`, in position order, published or not
 * (published rows are kept for the relay's retention, seven days), the names asked for only (and every public event
 * of this log with `EVERY_EVENT_NAME`). Positions come from a sequence taken when a row is inserted, so a row at a lower position can
 * commit after a higher one is visible: the page stops at the first row that is not yet answerable, and a reader that
 * only moves past what it was answered never steps over a row still uncommitted
 * (docs/adr/0040-webhook-event-log-reconciliation.md). A row is answerable when
 *
 * - it was inserted (`inserted_at`, the clock at the insert) before the start of every transaction still in progress
 *   (`uncommittedHorizon`, read before the rows). Why that is enough: a row R at a lower position than a row Q, still
 *   uncommitted, belongs to a transaction T that took R's position before Q's was taken (the sequence, cached one
 *   value at a time, hands values out in time order), and Q's `inserted_at` is read after its position (the column
 *   comes after `seq`, and defaults are evaluated in column order). So T started before Q was inserted. If T was in
 *   progress when the horizon was read, having inserted R (it holds a transaction id) or inserting it (it is running a
 *   statement), the horizon is at most T's start and Q is not answered. If T was over, it had committed (R is visible
 *   to the rows' snapshot, taken after) or rolled back (R never existed). If T had not started inserting R yet, R's
 *   position, and Q's after it, were taken after the horizon's statement began, and Q is not answered. This holds
 *   however long T stays open, on one clock (the database server's);
 * - and it is at least `settled_seconds` old by `created_at` (its transaction's start), the reader's own margin, no
 *   longer what keeps a position from being stepped over.
 */
export async function readEventLog(
  dataSource: DataSource,
  request: ReadEventLog,
  /** The log's read command: the public events it holds in this release are what `EVERY_EVENT_NAME` asks for. */
  log: CommandDefinition<ReadEventLog, EventLogPage>,
): Promise<EventLogPage> {
  const horizon = await uncommittedHorizon(dataSource);
  const rows: LogRow[] = await dataSource.query(
    `SELECT seq::text AS position, name, envelope->'payload' AS payload, created_at AS recorded_at,
            created_at <= now() - make_interval(secs => $3)
              AND (inserted_at IS NULL OR inserted_at < $4::timestamptz) AS settled
       FROM outbox WHERE seq > $1::bigint ORDER BY seq LIMIT $2`,
    [request.after_position, request.limit, request.settled_seconds, horizon],
  );
  const young = rows.findIndex((row) => !row.settled);
  const settled = young === -1 ? rows : rows.slice(0, young);
  const names = new Set(request.names);
  if (names.has(EVERY_EVENT_NAME)) for (const name of publicEventNamesOf(log)) names.add(name);
  const held = young === -1 ? undefined : rows[young];
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
    ...(held ? { held_since: held.recorded_at.toISOString() } : {}),
  };
}
