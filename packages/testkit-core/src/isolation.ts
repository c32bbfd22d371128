import { randomBytes } from 'node:crypto';
import { letTimePass } from './wait';
import { Client } from 'pg';
import { infrastructureUrls } from './infrastructure';

/** A short unique name part for one test file's broker names and Redis keys. */
export function uniquePrefix(label = 't'): string {
  return `${label}-${randomBytes(5).toString('hex')}.`;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh database for one test file: services create their own schemas in it by migrating. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = new URL(infrastructureUrls().databaseUrl);
  adminUrl.pathname = '/postgres';
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new Client({ connectionString: adminUrl.toString() });
      await client.connect();
      try {
        // A pool's end() resolves before its sockets close, so a backend may still be leaving: forcing it out then
        // hands that client an error nobody listens for. Give the leavers a moment, then force whatever stays.
        const deadline = Date.now() + 500;
        while (Date.now() < deadline && (await backendsOf(client, name)) > 0) await letTimePass(25);
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

async function backendsOf(admin: Client, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
  return Number(rows[0]!.n);
}
