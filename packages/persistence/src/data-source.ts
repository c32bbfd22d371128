import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource, type MixedList, type EntitySchema, type QueryRunner } from 'typeorm';

export interface ServiceDatabaseOptions {
  /** postgres://... of the deployment's database. */
  url: string;
  /** The schema this service owns; it touches no other. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
  /** Bounds on one statement (a minute unless set) and on a transaction left idle by a frozen holder (30 s). */
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
}

/** Creates the database itself when missing, so a fresh machine needs no manual step. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        // 42P04: another replica created it between our check and our create.
        if (err.code !== '42P04') throw err;
      });
    }
  } finally {
    await client.end();
  }
}

/** How long a query waits for a pooled connection, or for a new one to connect. */
const CONNECTION_TIMEOUT_MS = 5000;
/** Every statement here is short; a minute-long migration still fits. */
const STATEMENT_TIMEOUT_MS = 60_000;
/**
 * No transaction waits on the network, so one idle this long belongs to a frozen or vanished process. Shorter than the
 * statement bound, so a statement queued behind its locks gets them rather than being cancelled.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;

export function serviceDataSource(options: ServiceDatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    extra: {
      max: options.poolSize ?? 10,
      // A statement stuck behind a lock, or a transaction left open by a process frozen mid-way (holding row locks
      // every replica needs), ends with a transient error instead of stalling the queue behind it.
      options: [
        `-c search_path=${options.schema}`,
        `-c statement_timeout=${options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS}`,
        `-c idle_in_transaction_session_timeout=${options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
      ].join(' '),
      // A database that is down or hung fails a query within this (no free connection, or no connect), not never.
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      // Notices a peer that vanished without closing the socket (a host or network gone) instead of waiting on it.
      keepAlive: true,
    },
  });
}

/**
 * Ensures database and schema, then runs this service's pending migrations under an advisory lock so that several
 * replicas starting together migrate once.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<DataSource> {
  await ensureDatabase(options.url);
  const dataSource = serviceDataSource(options);
  await dataSource.initialize();
  const lockKey = `migrate:${options.schema}`;
  await dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    await manager.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
  });
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    await recordRenamedMigrations(runner, options.schema, options.migrations);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}

/**
 * Opens the service's DataSource on a schema migrated by another connection (its owner, through
 * `openServiceDatabase`), running nothing: a connection that owns nothing cannot create or change a table. Refuses
 * when a migration of this service has not run, so a process never serves an older schema than its code expects.
 */
export async function connectServiceDatabase(options: ServiceDatabaseOptions): Promise<DataSource> {
  const dataSource = serviceDataSource(options);
  await dataSource.initialize();
  try {
    const [found] = (await dataSource.query('SELECT to_regclass($1) AS migrations', [
      `"${options.schema}".migrations`,
    ])) as Array<{ migrations: string | null }>;
    const ran = found?.migrations
      ? ((await dataSource.query(`SELECT name FROM "${options.schema}".migrations`)) as Array<{
          name: string;
        }>)
      : [];
    const done = new Set(ran.map((row) => row.name));
    const pending = dataSource.migrations
      .map((m) => m.name ?? m.constructor.name)
      .filter((n) => !done.has(n));
    if (pending.length > 0)
      throw new Error(
        `schema ${options.schema} is not migrated (pending: ${pending.join(', ')}): run its migrate command first`,
      );
  } catch (err) {
    await dataSource.destroy();
    throw err;
  }
  return dataSource;
}

/**
 * A released migration given a new name (and so a new timestamp), e.g. to end a clash of timestamps: it carries the
 * name it was released under, `static readonly formerName = 'Checkouts1732300003000'`.
 */
export interface RenamedMigration {
  readonly formerName: string;
  new (): { name?: string };
}

function isRenamed(migration: unknown): migration is RenamedMigration {
  return (
    typeof migration === 'function' && typeof (migration as { formerName?: unknown }).formerName === 'string'
  );
}

/**
 * TypeORM knows a migration has run by its name: a database that ran a renamed migration under its former name would
 * run it again. Its row takes the new name (and timestamp, the name's last 13 digits, as TypeORM reads it) first.
 */
async function recordRenamedMigrations(
  runner: QueryRunner,
  schema: string,
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>,
): Promise<void> {
  const renamed = (Array.isArray(migrations) ? migrations : Object.values(migrations)).filter(isRenamed);
  if (renamed.length === 0) return;
  const table = `"${schema}".migrations`;
  const [found] = (await runner.query('SELECT to_regclass($1) AS migrations', [table])) as Array<{
    migrations: string | null;
  }>;
  // A new database: nothing ran under any name yet.
  if (!found?.migrations) return;
  for (const migration of renamed) {
    const name = new migration().name ?? migration.name;
    await runner.query(`UPDATE ${table} SET name = $1, timestamp = $2 WHERE name = $3`, [
      name,
      Number(name.slice(-13)),
      migration.formerName,
    ]);
  }
}
