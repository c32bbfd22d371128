import type { EntityManager } from 'typeorm';
import { UnreadableTransactionEntity } from './unreadable-transaction.entity';

/** An unreadable transaction as first recorded. */
export interface UnreadableRecord {
  signature: string;
  address: string;
  /** Unix seconds; null when the node did not give one. */
  blockTime: number | null;
  error: string;
  namedReferences: string[];
  /** When to read it again. */
  nextAttemptAt: Date;
}

/** Records an unreadable transaction once per signature; whether this call recorded it. */
export async function insertUnreadableOnce(
  manager: EntityManager,
  record: UnreadableRecord,
): Promise<boolean> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO unreadable_transactions (signature, address, block_time, error, named_references, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (signature) DO NOTHING RETURNING signature`,
    [
      record.signature,
      record.address,
      record.blockTime === null ? null : new Date(record.blockTime * 1000),
      record.error,
      record.namedReferences,
      record.nextAttemptAt,
    ],
  );
  return inserted.length > 0;
}

/** Which of these signatures are recorded already (read or not). */
export async function recordedUnreadable(
  manager: EntityManager,
  signatures: readonly string[],
): Promise<Set<string>> {
  if (signatures.length === 0) return new Set();
  const rows: { signature: string }[] = await manager.query(
    'SELECT signature FROM unreadable_transactions WHERE signature = ANY($1)',
    [signatures],
  );
  return new Set(rows.map((row) => row.signature));
}

/** Up to `limit` unread transactions due to be read again, the longest waiting first. */
export function dueUnreadable(manager: EntityManager, limit: number): Promise<UnreadableTransactionEntity[]> {
  return manager
    .createQueryBuilder(UnreadableTransactionEntity, 'unreadable')
    .where('unreadable.read_at IS NULL AND unreadable.next_attempt_at <= now()')
    .orderBy('unreadable.next_attempt_at')
    .limit(limit)
    .getMany();
}

/** Marks it read, unless another replica did already; whether this call did. */
export async function markUnreadableRead(manager: EntityManager, signature: string): Promise<boolean> {
  const updated: unknown[] = await manager.query(
    `UPDATE unreadable_transactions SET read_at = now() WHERE signature = $1 AND read_at IS NULL RETURNING signature`,
    [signature],
  );
  return updated.length > 0;
}

/** Counts one more failed attempt and when to try next. */
export async function postponeUnreadable(
  manager: EntityManager,
  signature: string,
  error: string,
  nextAttemptAt: Date,
): Promise<void> {
  await manager.query(
    `UPDATE unreadable_transactions SET attempts = attempts + 1, error = $2, next_attempt_at = $3
      WHERE signature = $1 AND read_at IS NULL`,
    [signature, error, nextAttemptAt],
  );
}

/** How many transactions are still unread. */
export async function countUnread(manager: EntityManager): Promise<number> {
  const [row] = await manager.query(
    'SELECT count(*)::int AS unread FROM unreadable_transactions WHERE read_at IS NULL',
  );
  return (row as { unread: number }).unread;
}
