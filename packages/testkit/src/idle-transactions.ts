/** Anything that runs SQL: a TypeORM DataSource or EntityManager, a pg client. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * How many connections to `database` sit in an open transaction doing nothing: each is waiting on something outside
 * the database (a rail, the PSP, the broker) while it holds its locks and its pool connection.
 */
export async function connectionsIdleInTransaction(db: Queryable, database: string): Promise<number> {
  const rows = (await db.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'idle in transaction'`,
    [database],
  )) as Array<{ n: number }>;
  return rows[0]!.n;
}
