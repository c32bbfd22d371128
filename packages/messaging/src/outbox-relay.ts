import type { DataSource } from 'typeorm';
import type { Envelope } from '@gateway/contracts';
import { gauge, type Logger } from '@gateway/observability';
import type { Broker } from './broker';
import { PeriodicTask } from './periodic-task';

export interface OutboxRelayOptions {
  /** Poll interval when nothing nudges the relay (other replicas' rows, restarts, outages). */
  intervalMs?: number;
  batchSize?: number;
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

const outboxPending = gauge('outbox_unpublished_messages', 'Outbox rows not yet published in the last batch');

/**
 * Publishes outbox rows with confirms and marks them sent. Rows are claimed with FOR UPDATE SKIP LOCKED, so several
 * replicas share the work; a crash before marking means the row is published again (consumers deduplicate).
 */
export class OutboxRelay {
  private lastCleanup = 0;
  private readonly batchSize: number;
  private readonly task: PeriodicTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly broker: Broker,
    private readonly options: OutboxRelayOptions,
  ) {
    this.batchSize = options.batchSize ?? 100;
    this.task = new PeriodicTask(() => this.pass(), {
      name: 'outbox-relay',
      intervalMs: options.intervalMs ?? 500,
      logger: options.logger,
    });
  }

  start(): void {
    this.task.start();
  }

  /** Publish now rather than at the next poll. */
  nudge(): void {
    this.task.nudge();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Publishes one batch; returns how many rows were published. */
  async drainOnce(): Promise<number> {
    if (!this.broker.connected) return 0;
    return this.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(
        `SELECT seq, envelope, headers FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) return 0;
      const results = await Promise.allSettled(
        rows.map((row) => this.broker.publishEnvelope(row.envelope, row.headers)),
      );
      const published = rows.filter((_, i) => results[i]?.status === 'fulfilled').map((row) => row.seq);
      if (published.length > 0) {
        await manager.query(`UPDATE outbox SET published_at = now() WHERE seq = ANY($1::bigint[])`, [
          published,
        ]);
      }
      outboxPending.set(rows.length - published.length);
      if (published.length < rows.length) {
        this.options.logger.warn(
          { failed: rows.length - published.length },
          'outbox publish failed, will retry',
        );
      }
      return published.length;
    });
  }

  /** One batch, then clean-up when due; asks to run again at once while full batches keep coming. */
  private async pass(): Promise<boolean> {
    const published = await this.drainOnce();
    await this.cleanupIfDue();
    return published >= this.batchSize;
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
