import type { DataSource, EntityManager } from 'typeorm';
import { ScanCursorEntity } from './scan-cursor.entity';

/** Advisory lock key: one replica scans at a time; the others skip their turn. */
const SCAN_LOCK = 'solana_watcher:scan';

/**
 * Runs `work` holding the scan lock (a session lock, on a connection of its own, so `work` may run transactions);
 * false without running it when another process holds the lock.
 */
export async function whileHoldingScanLock(
  dataSource: DataSource,
  work: () => Promise<void>,
): Promise<boolean> {
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    const [lock] = await lockHolder.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [SCAN_LOCK]);
    if (!lock?.locked) return false;
    try {
      await work();
      return true;
    } finally {
      await lockHolder.query('SELECT pg_advisory_unlock(hashtext($1))', [SCAN_LOCK]);
    }
  } finally {
    await lockHolder.release();
  }
}

/** The last processed signature per watched address. */
export async function savedScanCursor(manager: EntityManager): Promise<Record<string, string>> {
  const saved = await manager.find(ScanCursorEntity);
  return Object.fromEntries(saved.map((row) => [row.address, row.lastSignature]));
}

export async function saveScanCursor(
  manager: EntityManager,
  address: string,
  signature: string,
): Promise<void> {
  await manager.query(
    `INSERT INTO scan_cursors (address, last_signature) VALUES ($1, $2)
     ON CONFLICT (address) DO UPDATE SET last_signature = EXCLUDED.last_signature, updated_at = now()`,
    [address, signature],
  );
}
