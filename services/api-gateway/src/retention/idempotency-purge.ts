import type { DataSource } from 'typeorm';
import { PeriodicTask } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';

/** Rows deleted per statement, so a large backlog never holds one long transaction. */
const BATCH = 1000;

/** Deletes expired idempotency records (24 h after their claim), a batch at a time, every `intervalMs`. */
export function idempotencyPurge(dataSource: DataSource, logger: Logger, intervalMs: number): PeriodicTask {
  return new PeriodicTask(
    async () => {
      // TypeORM answers a DELETE on PostgreSQL with [rows, affected count].
      const [, deleted]: [unknown[], number] = await dataSource.query(
        `DELETE FROM idempotency_keys
          WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
        [BATCH],
      );
      return deleted === BATCH;
    },
    { name: 'idempotency-purge', intervalMs, logger },
  );
}
