import { Client } from 'pg';

/**
 * The books' database refusing connections, as in an outage: new connections refused and the open ones ended. Answers
 * the way back (connections allowed again).
 */
export async function refuseBooksConnections(booksUrl: string): Promise<{ end: () => Promise<void> }> {
  const name = new URL(booksUrl).pathname.slice(1);
  const adminUrl = new URL(booksUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  return {
    end: async () => {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await admin.end();
    },
  };
}
