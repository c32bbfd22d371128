import type { DataSource } from 'typeorm';
import type { Envelope } from '@gateway/contracts';
import { gauge, type Logger } from '@gateway/observability';
import type { Broker } from './broker';
import { PeriodicWorker } from './periodic-task';

export interface OutboxRelayOptions {
  /** Poll interval when nothing nudges the relay (other replicas' rows, restarts, outages). */
  intervalMs?: number;
  batchSize?: number;
  /**
   * How long a relay holds the rows it claimed: it waits for the broker's confirms half as long; a row it could not
   * publish in that time (or whose relay died) is claimed again by any relay once the lease has run out.
   */
  leaseMs?: number;
  /** Published rows older than this are deleted. */
  retentionHours?: number;
  /**
   * Processed inbox rows older than this are deleted. It must stay far longer than any window in which a message id
   * can legitimately come again (the gateway's 24 h idempotency window, the payment service's create reservations).
   */
  inboxRetentionHours?: number;
  logger: Logger;
}

interface OutboxRow {
  seq: string;
  envelope: Envelope;
  headers: Record<string, string>;
}

/** A row as this relay claimed it: `claim` is the lease end it set, exactly as stored. */
interface ClaimedRow extends OutboxRow {
  claim: string;
}

type PublishOutcome = 'published' | 'failed' | 'unconfirmed';

const outboxBacklog = gauge(
  'outbox_unpublished_messages',
  'Outbox rows not yet published (the relay backlog)',
);
const outboxOldestAge = gauge(
  'outbox_oldest_unpublished_age_seconds',
  'Age of the oldest outbox row not yet published (0: none)',
);
/** How often the relay measures its backlog: often enough for an alert, cheap even on a long backlog. */
const BACKLOG_GAUGE_INTERVAL_MS = 5_000;

/**
 * Publishes outbox rows with confirms and marks them sent, never inside a database transaction: rows are claimed for
 * a lease (SKIP LOCKED, so several replicas share the work and never publish the same row at once), published, then
 * marked. A crash or a broker that never confirms before marking means the row is published again after the lease
 * (at-least-once: consumers deduplicate by message id).
 */
export class OutboxRelay extends PeriodicWorker {
  private lastCleanup = 0;
  private lastBacklogMeasure = 0;
  private readonly batchSize: number;
  private readonly leaseMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly broker: Broker,
    private readonly options: OutboxRelayOptions,
  ) {
    super({ name: 'outbox-relay', intervalMs: options.intervalMs ?? 500, logger: options.logger });
    this.batchSize = options.batchSize ?? 100;
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  /**
   * Publishes, batch after batch, every row committed and unclaimed now, confirms awaited; returns how many. For a
   * stopping service, once nothing commits any more: a batch that published less than it took ends it (the rest is
   * published after its lease by the next relay).
   */
  async flush(): Promise<number> {
    let published = 0;
    for (;;) {
      const batch = await this.drainOnce();
      published += batch;
      if (batch < this.batchSize) return published;
    }
  }

  /**
   * Publishes one batch; returns how many rows were published. Rows are claimed for a lease in one statement (its
   * own short transaction), published with confirms outside any transaction, then marked sent; a failed publish
   * hands its rows back at once. Confirms are awaited for half the lease at most: rows still unconfirmed then keep
   * their claim until it runs out, so no other relay publishes them while this one may still be doing so.
   */
  async drainOnce(): Promise<number> {
    if (!this.broker.connected) return 0;
    // TypeORM answers an UPDATE ... RETURNING with [rows, count].
    const [claimed]: [ClaimedRow[], number] = await this.dataSource.query(
      `UPDATE outbox SET claimed_until = now() + make_interval(secs => $2)
       WHERE seq IN (SELECT seq FROM outbox
                     WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                     ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING seq, envelope, headers, claimed_until::text AS claim`,
      [this.batchSize, this.leaseMs / 1000],
    );
    if (claimed.length === 0) return 0;
    const rows = claimed.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
    const outcomes = await this.publishWithin(rows, this.leaseMs / 2);
    const seqs = (outcome: PublishOutcome) =>
      rows.filter((_, i) => outcomes[i] === outcome).map((row) => row.seq);
    const published = seqs('published');
    const failed = seqs('failed');
    // Only this claim's rows: after its lease another relay may hold them.
    const claim = rows[0]!.claim;
    if (published.length > 0) {
      await this.dataSource.query(
        `UPDATE outbox SET published_at = now(), claimed_until = NULL
         WHERE seq = ANY($1::bigint[]) AND published_at IS NULL`,
        [published],
      );
    }
    if (failed.length > 0) {
      await this.dataSource.query(
        `UPDATE outbox SET claimed_until = NULL
         WHERE seq = ANY($1::bigint[]) AND claimed_until = $2::timestamptz AND published_at IS NULL`,
        [failed, claim],
      );
    }
    if (published.length < rows.length) {
      this.options.logger.warn(
        { failed: failed.length, unconfirmed: rows.length - published.length - failed.length },
        'outbox publish failed, will retry',
      );
    }
    return published.length;
  }

  /** Publishes every row at once and waits for their confirms, `timeoutMs` at most. */
  private async publishWithin(rows: OutboxRow[], timeoutMs: number): Promise<PublishOutcome[]> {
    const outcomes: PublishOutcome[] = rows.map(() => 'unconfirmed');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const all = Promise.all(
      rows.map((row, i) =>
        this.broker.publishEnvelope(row.envelope, row.headers).then(
          () => (outcomes[i] = 'published'),
          () => (outcomes[i] = 'failed'),
        ),
      ),
    );
    try {
      await Promise.race([all, deadline]);
    } finally {
      clearTimeout(timer);
    }
    return [...outcomes];
  }

  /** One batch, then clean-up when due; asks to run again at once while full batches keep coming. */
  protected override async pass(): Promise<boolean> {
    const published = await this.drainOnce();
    await this.measureBacklogIfDue();
    await this.cleanupIfDue();
    return published >= this.batchSize;
  }

  /** Sets the backlog gauges, also while the broker is away (when they matter most). */
  private async measureBacklogIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastBacklogMeasure < BACKLOG_GAUGE_INTERVAL_MS) return;
    this.lastBacklogMeasure = now;
    const [backlog]: Array<{ unpublished: number; oldest_seconds: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS unpublished,
              COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest_seconds
         FROM outbox WHERE published_at IS NULL`,
    );
    outboxBacklog.set(backlog?.unpublished ?? 0);
    outboxOldestAge.set(backlog?.oldest_seconds ?? 0);
  }

  private async cleanupIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < 3_600_000) return;
    this.lastCleanup = now;
    await this.dataSource.query(
      `DELETE FROM outbox WHERE published_at < now() - make_interval(hours => $1)`,
      [this.options.retentionHours ?? 24 * 7],
    );
    await this.dataSource.query(`DELETE FROM inbox WHERE processed_at < now() - make_interval(hours => $1)`, [
      this.options.inboxRetentionHours ?? 24 * 28,
    ]);
  }
}
