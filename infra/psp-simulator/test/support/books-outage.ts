import { Client } from 'pg';
import { waitFor } from '@gateway/testkit-core';

/**
 * The books' database refusing connections, as in an outage (new connections refused, the open ones ended), for as
 * long as it takes the simulator to fail twice to settle what is due (`lines`: what its recording logger kept); then
 * connections are allowed again.
 */
export async function outageThroughTwoSettleTries(
  booksUrl: string,
  lines: Array<Record<string, unknown>>,
): Promise<void> {
  const name = new URL(booksUrl).pathname.slice(1);
  const adminUrl = new URL(booksUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    const failedTries = () => lines.filter((line) => line.msg === 'not settled yet; trying again').length;
    await waitFor(() => failedTries() >= 2, { what: 'two tries to settle refused by the database' });
  } finally {
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await admin.end();
  }
}
