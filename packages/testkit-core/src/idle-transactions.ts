/** Anything that runs SQL and answers rows: a TypeORM DataSource or EntityManager. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * How many connections to `database` sit in an open transaction doing nothing: each is waiting on something outside
 * the database (a rail, the PSP, the broker) while it holds its locks and its pool connection. `forAtLeastMs` leaves
 * out the instants between two statements of a short transaction, for a caller that samples continuously.
 */
export async function connectionsIdleInTransaction(
  db: Queryable,
  database: string,
  { forAtLeastMs = 0 } = {},
): Promise<number> {
  const rows = (await db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = $1 AND state = 'idle in transaction' AND state_change <= now() - make_interval(secs => $2)`,
    [database, forAtLeastMs / 1000],
  )) as Array<{ n: number }>;
  return rows[0]!.n;
}
