import type { EntityManager } from 'typeorm';

/** The rows of one table a periodic check takes, as SQL over that table's columns (`$1`... its parameters). */
export interface CheckedRows {
  table: string;
  key: string;
  /** Which rows are due for the check. */
  due: string;
  /** Which of them come first. */
  orderBy: string;
  /** Until when a row taken is left to the one that took it. */
  claimedUntil: string;
  /** The columns answered of each row taken. */
  returning: string;
}

/**
 * Takes up to `limit` rows due for a check that nobody else is checking (never claimed, or their claim has lapsed), in
 * one statement that skips rows another transaction holds; answers the `returning` columns of those taken.
 */
export async function claimDueRows<Row>(
  manager: EntityManager,
  rows: CheckedRows,
  parameters: unknown[],
  limit: number,
): Promise<Row[]> {
  const [claimed]: [Row[], number] = await manager.query(
    `UPDATE ${rows.table} SET claimed_until = ${rows.claimedUntil}
      WHERE ${rows.key} IN (SELECT ${rows.key} FROM ${rows.table}
                             WHERE ${rows.due} AND (claimed_until IS NULL OR claimed_until <= now())
                             ORDER BY ${rows.orderBy} LIMIT $${parameters.length + 1} FOR UPDATE SKIP LOCKED)
      RETURNING ${rows.returning}`,
    [...parameters, limit],
  );
  return claimed;
}
