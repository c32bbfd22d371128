import type { EntityManager } from 'typeorm';

/**
 * Takes (or keeps) the lease on a log for `leaseMs` and answers its position; null while another replica's lease
 * runs. A replica that died leaves its lease to run out, then any replica takes the log from where it was saved.
 */
export async function claimEventLog(
  manager: EntityManager,
  log: string,
  owner: string,
  leaseMs: number,
): Promise<string | null> {
  await manager.query(`INSERT INTO event_log_cursors (log) VALUES ($1) ON CONFLICT (log) DO NOTHING`, [log]);
  const [rows]: [Array<{ position: string }>, number] = await manager.query(
    `UPDATE event_log_cursors SET lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3)
      WHERE log = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires_at < now())
      RETURNING position::text AS position`,
    [log, owner, leaseMs / 1000],
  );
  return rows[0]?.position ?? null;
}

/**
 * Moves the log's position forward (never back) and renews the lease, after a pass that read and recorded its page
 * (a pass that failed gives the lease up, see `releaseEventLog`). `caughtUpTo`, when the page reached the end of what
 * the owner answered: the reader has read everything recorded before that instant (when the first entry the owner
 * still holds back was recorded, or 'now' when it holds none back), so a log held back by a transaction left open
 * shows as a lag that grows. False when the lease is no longer this owner's (it ran out and another replica took it),
 * which then saves nothing.
 */
export async function advanceEventLog(
  manager: EntityManager,
  log: string,
  owner: string,
  position: string,
  leaseMs: number,
  caughtUpTo: string | 'now' | undefined,
): Promise<boolean> {
  const [rows]: [unknown[], number] = await manager.query(
    `UPDATE event_log_cursors
        SET position = GREATEST(position, $3::bigint), updated_at = now(),
            lease_expires_at = now() + make_interval(secs => $4),
            caught_up_at = CASE WHEN $5::text IS NULL THEN caught_up_at
                                WHEN $5::text = 'now' THEN now()
                                ELSE LEAST(now(), $5::timestamptz) END
      WHERE log = $1 AND lease_owner = $2 RETURNING log`,
    [log, owner, position, leaseMs / 1000, caughtUpTo ?? null],
  );
  return rows.length > 0;
}

/** Gives the lease up (a stopping replica), so another replica reads the log without waiting for it to run out. */
export async function releaseEventLog(manager: EntityManager, log: string, owner: string): Promise<void> {
  await manager.query(
    `UPDATE event_log_cursors SET lease_owner = NULL, lease_expires_at = NULL WHERE log = $1 AND lease_owner = $2`,
    [log, owner],
  );
}

/** Seconds each log's reader is behind: since what it has read everything recorded before (`advanceEventLog`). */
export async function eventLogLags(manager: EntityManager): Promise<Array<{ log: string; seconds: number }>> {
  const rows: Array<{ log: string; seconds: number }> = await manager.query(
    `SELECT log, EXTRACT(EPOCH FROM now() - caught_up_at)::float8 AS seconds FROM event_log_cursors`,
  );
  return rows;
}
