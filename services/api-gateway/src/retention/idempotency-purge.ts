import type { DataSource } from 'typeorm';
import { BatchPurge } from '@gateway/messaging';
import type { Logger } from '@gateway/observability';

/** Deletes expired idempotency records (24 h after their claim), a batch at a time, every `intervalMs`. */
export function idempotencyPurge(dataSource: DataSource, logger: Logger, intervalMs: number): BatchPurge {
  return new BatchPurge({
    name: 'idempotency-purge',
    metric: {
      name: 'api_gateway_idempotency_keys_purged_total',
      help: 'Idempotency records deleted after they expired',
    },
    deleteBatch: async (batchSize) => {
      // TypeORM answers a DELETE on PostgreSQL with [rows, affected count].
      const [, deleted]: [unknown[], number] = await dataSource.query(
        `DELETE FROM idempotency_keys
          WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
        [batchSize],
      );
      return deleted;
    },
    intervalMs,
    logger,
  });
}
