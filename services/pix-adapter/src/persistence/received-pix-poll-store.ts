import type { EntityManager } from 'typeorm';

/** The pass's hold on the list of received Pix: how far it was read, and what is left of this minute's budget. */
export interface ReceivedPixPollLease {
  /** Every Pix the PSP listed before this (less the overlap the pass allows for) has been seen; null: never read. */
  polledUntil: Date | null;
  /** Requests the pass may still make at the PSP in the current minute. */
  budget: number;
  /** When the oldest active charge still open past the overdue delay was opened; null: none, nothing to read. */
  oldestOverdue: Date | null;
  /** When the oldest active charge was opened: no Pix for an active charge is older. */
  oldestActive: Date | null;
  /** The database's clock, which every period is read against. */
  now: Date;
  /** Where the sweep of the MED window stands: null when none is under way and none is due. */
  medSweep: MedSweepProgress | null;
}

/** A sweep of the MED window: the end of its period (fixed while it lasts, so its pages stay put) and its next page. */
export interface MedSweepProgress {
  fim: Date;
  nextPage: number;
}

/** What a pass did of the MED sweep: left where it was, stopped at a page, or read the whole window. */
export type MedSweepOutcome = 'untouched' | 'done' | MedSweepProgress;

/**
 * Takes the pass for `leaseSeconds` when no replica holds it (answers null otherwise), opening a new budget minute when
 * the last one is over, with what the pass needs to decide what to read.
 */
export async function leaseReceivedPixPoll(
  manager: EntityManager,
  options: {
    owner: string;
    leaseSeconds: number;
    requestsPerMinute: number;
    overdueSeconds: number;
    /** A new sweep of the MED window is due this long after the last one read it whole. */
    medSweepEverySeconds: number;
  },
): Promise<ReceivedPixPollLease | null> {
  const [rows]: [
    Array<{
      polled_until: Date | null;
      window_requests: number;
      now: Date;
      oldest_active: Date | null;
      oldest_overdue: Date | null;
      med_sweep_fim: Date | null;
      med_sweep_page: number;
      med_sweep_due: boolean;
    }>,
    number,
  ] = await manager.query(
    `UPDATE received_pix_poll
        SET leased_by = $3, leased_until = now() + $1 * interval '1 second',
            window_started_at = CASE WHEN window_started_at <= now() - interval '1 minute'
                                     THEN now() ELSE window_started_at END,
            window_requests = CASE WHEN window_started_at <= now() - interval '1 minute'
                                   THEN 0 ELSE window_requests END
      WHERE id = 1 AND leased_until <= now()
      RETURNING polled_until, window_requests, now() AS now, med_sweep_fim, med_sweep_page,
        med_swept_at <= now() - $4 * interval '1 second' AS med_sweep_due,
        (SELECT min(created_at) FROM charges WHERE status = 'active' AND expires_at > now()) AS oldest_active,
        (SELECT min(created_at) FROM charges
          WHERE status = 'active' AND expires_at > now() AND created_at <= now() - $2 * interval '1 second')
          AS oldest_overdue`,
    [options.leaseSeconds, options.overdueSeconds, options.owner, options.medSweepEverySeconds],
  );
  const [row] = rows;
  if (row === undefined) return null;
  return {
    polledUntil: row.polled_until,
    budget: Math.max(0, options.requestsPerMinute - row.window_requests),
    oldestOverdue: row.oldest_overdue,
    oldestActive: row.oldest_active,
    now: row.now,
    medSweep:
      row.med_sweep_fim !== null
        ? { fim: row.med_sweep_fim, nextPage: row.med_sweep_page }
        : row.med_sweep_due
          ? { fim: row.now, nextPage: 0 }
          : null,
  };
}

/**
 * Gives the pass back: the requests it made count against this minute (whoever holds the pass now), and, only if this
 * pass still held it, the list is read up to `polledUntil`, the MED sweep's progress is kept, and the pass is free.
 */
export async function releaseReceivedPixPoll(
  manager: EntityManager,
  outcome: { owner: string; requests: number; polledUntil: Date | null; medSweep?: MedSweepOutcome },
): Promise<void> {
  const sweep = outcome.medSweep ?? 'untouched';
  const progress = typeof sweep === 'object' ? sweep : null;
  await manager.query(
    `UPDATE received_pix_poll
        SET window_requests = window_requests + $1,
            polled_until = CASE WHEN leased_by = $3 THEN COALESCE($2, polled_until) ELSE polled_until END,
            med_sweep_fim = CASE WHEN leased_by IS DISTINCT FROM $3::uuid OR $4::text = 'untouched' THEN med_sweep_fim
                                 WHEN $4::text = 'done' THEN NULL ELSE $5::timestamptz END,
            med_sweep_page = CASE WHEN leased_by IS DISTINCT FROM $3::uuid OR $4::text = 'untouched' THEN med_sweep_page
                                  WHEN $4::text = 'done' THEN 0 ELSE $6::integer END,
            med_swept_at = CASE WHEN leased_by = $3 AND $4::text = 'done' THEN now() ELSE med_swept_at END,
            leased_until = CASE WHEN leased_by = $3 THEN '-infinity' ELSE leased_until END,
            leased_by = CASE WHEN leased_by = $3 THEN NULL ELSE leased_by END
      WHERE id = 1`,
    [
      outcome.requests,
      outcome.polledUntil,
      outcome.owner,
      progress ? 'progress' : sweep,
      progress?.fim ?? null,
      progress?.nextPage ?? 0,
    ],
  );
}

/**
 * Of the Pix the PSP listed (`endToEndId` and `txid`), the txids of active charges with a Pix not applied yet: the
 * charges to read again now.
 */
export async function activeChargesWithNewPix(
  manager: EntityManager,
  listed: ReadonlyArray<{ endToEndId: string; txid: string }>,
): Promise<string[]> {
  if (listed.length === 0) return [];
  const rows: Array<{ txid: string }> = await manager.query(
    `SELECT DISTINCT l.txid FROM unnest($1::text[], $2::text[]) AS l(end_to_end_id, txid)
       JOIN charges c ON c.txid = l.txid AND c.status = 'active'
      WHERE NOT EXISTS (SELECT 1 FROM callbacks_received r
                         WHERE r.end_to_end_id = l.end_to_end_id
                           AND r.outcome IN ('applied', 'wrong_amount', 'late'))`,
    [listed.map((pix) => pix.endToEndId), listed.map((pix) => pix.txid)],
  );
  return rows.map((row) => row.txid);
}
