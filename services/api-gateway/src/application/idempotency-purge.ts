import type { DataSource } from 'typeorm';
import { BatchPurge } from '@gateway/service-runtime';
import type { Logger } from '@gateway/observability';
import { purgeExpiredIdempotencyKeys } from '../persistence';

/** Deletes expired idempotency records (24 h after their claim), a batch at a time, every `intervalMs`. */
export function idempotencyPurge(dataSource: DataSource, logger: Logger, intervalMs: number): BatchPurge {
  return new BatchPurge({
    name: 'idempotency-purge',
    metric: {
      name: 'api_gateway_idempotency_keys_purged_total',
      help: 'Idempotency records deleted after they expired',
    },
    deleteBatch: (batchSize) => purgeExpiredIdempotencyKeys(dataSource.manager, batchSize),
    intervalMs,
    logger,
  });
}
