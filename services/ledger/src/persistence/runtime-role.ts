import { DataSource } from 'typeorm';

/**
 * The role the ledger serves as (docs/operating.md#the-ledgers-database-roles): it owns nothing, and the grants of the
 * migration `RuntimeRole1764402000000` (and the default privileges it sets for every table made after it) are all it
 * holds in the ledger's schema. In production the operator creates it (or makes the serving login a member of it); in
 * the sandbox the service creates it.
 */
export const LEDGER_RUNTIME_ROLE = 'ledger_runtime';

/** The ledger's schema, as its DataSource and migrations name it. */
const SCHEMA = 'ledger';

/**
 * The tables of the books, written once: the serving role may add rows, never change or remove one. A settled
 * balance transaction's `status` (pending -> available, which its trigger allows and nothing else) is the one column
 * it may set.
 */
export const WRITTEN_ONCE_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  journals: [],
  entries: [],
  balance_transactions: ['status'],
};

/** Which connection migrates the ledger's schema and which one the service serves with. */
export interface LedgerConnections {
  /** The owner's connection; null: nobody migrates at start (production without MIGRATION_DATABASE_URL). */
  migrationUrl: string | null;
  serveUrl: string;
}

interface ConnectionSettings {
  APP_ENV: 'sandbox' | 'production';
  DATABASE_URL: string;
  MIGRATION_DATABASE_URL?: string;
}

/**
 * MIGRATION_DATABASE_URL set: it migrates, DATABASE_URL serves (outside production, the owner creates
 * `ledger_runtime` first when DATABASE_URL names it and it is missing, with DATABASE_URL's password). Unset outside
 * production: DATABASE_URL is the local administrator; it creates `ledger_runtime` when missing and migrates, and the
 * service serves as that role on the same server and database. Unset in production: nothing migrates at start,
 * DATABASE_URL serves. Production never creates a role: the operator does (docs/operating.md).
 */
export async function ledgerConnections(config: ConnectionSettings): Promise<LedgerConnections> {
  const serving = new URL(config.DATABASE_URL);
  if (config.MIGRATION_DATABASE_URL !== undefined) {
    if (config.APP_ENV !== 'production' && decodeURIComponent(serving.username) === LEDGER_RUNTIME_ROLE)
      await createRuntimeRole(config.MIGRATION_DATABASE_URL, decodeURIComponent(serving.password));
    return { migrationUrl: config.MIGRATION_DATABASE_URL, serveUrl: config.DATABASE_URL };
  }
  if (config.APP_ENV === 'production') return { migrationUrl: null, serveUrl: config.DATABASE_URL };
  await createRuntimeRole(config.DATABASE_URL, decodeURIComponent(serving.password));
  serving.username = LEDGER_RUNTIME_ROLE;
  return { migrationUrl: config.DATABASE_URL, serveUrl: serving.toString() };
}

/** PostgreSQL's answers when another process created the role between our look and our create. */
const ROLE_CREATED_MEANWHILE = new Set(['42710', '23505']);

/**
 * Creates `ledger_runtime` (or `role`) through an administrator's connection unless it exists, once per PostgreSQL
 * server (roles are the server's, not a database's: every test database and every replica shares it). Its password
 * lets it in as the server's authentication wants (none with trust, as locally; the sandbox's in compose). Safe to run
 * from many processes at once: one creates it, the others find it made (`duplicate_object`, or `unique_violation`
 * when the two creations overlap).
 */
export async function createRuntimeRole(
  adminUrl: string,
  password: string,
  role: string = LEDGER_RUNTIME_ROLE,
): Promise<void> {
  const maintenance = new URL(adminUrl);
  maintenance.pathname = '/postgres';
  const server = await new DataSource({
    type: 'postgres',
    url: maintenance.toString(),
    extra: { max: 1 },
  }).initialize();
  try {
    const found = (await server.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])) as unknown[];
    if (found.length === 0) {
      const withPassword = password === '' ? '' : ` PASSWORD '${password.replace(/'/g, "''")}'`;
      await server.query(`CREATE ROLE "${role}" LOGIN${withPassword}`).catch((err: { code?: string }) => {
        if (!ROLE_CREATED_MEANWHILE.has(err.code ?? '')) throw err;
      });
    }
  } finally {
    await server.destroy();
  }
}

/**
 * What the serving connection may do beyond what the service needs, one line each; empty when it holds no more. It
 * must not be a superuser or able to create roles (either could make itself anything), nor own — or be a member of
 * the owner of — the schema or anything in it (an owner may disable or drop a trigger, or replace its function), nor
 * create in the schema, nor truncate or add triggers to any table, nor change or delete a row of the books (but a
 * settled balance transaction's status).
 */
export async function excessLedgerPrivileges(dataSource: DataSource): Promise<string[]> {
  const problems: string[] = [];
  const [role] = (await dataSource.query(
    `SELECT current_user AS name, rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user`,
  )) as Array<{ name: string; rolsuper: boolean; rolcreaterole: boolean }>;
  if (!role) return ['its role is not found'];
  if (role.rolsuper) problems.push(`${role.name} is a superuser`);
  if (role.rolcreaterole) problems.push(`${role.name} may create roles`);
  const [schema] = (await dataSource.query(
    `SELECT pg_has_role(current_user, nspowner, 'MEMBER') AS owner,
            has_schema_privilege(current_user, oid, 'CREATE') AS create
       FROM pg_namespace WHERE nspname = $1`,
    [SCHEMA],
  )) as Array<{ owner: boolean; create: boolean }>;
  if (!schema) return [...problems, `schema ${SCHEMA} is missing`];
  if (schema.owner) problems.push(`it owns schema ${SCHEMA}`);
  if (schema.create) problems.push(`it may create objects in schema ${SCHEMA}`);
  const owned = (await dataSource.query(
    `SELECT relname AS name FROM pg_class
      WHERE relnamespace = $1::regnamespace AND pg_has_role(current_user, relowner, 'MEMBER')
     UNION ALL
     SELECT proname || '()' FROM pg_proc
      WHERE pronamespace = $1::regnamespace AND pg_has_role(current_user, proowner, 'MEMBER')
     ORDER BY 1`,
    [SCHEMA],
  )) as Array<{ name: string }>;
  if (owned.length > 0) problems.push(`it owns ${owned.map((o) => o.name).join(', ')}`);
  const tables = (await dataSource.query(
    `SELECT relname AS name,
            has_table_privilege(current_user, oid, 'TRUNCATE') AS truncate,
            has_table_privilege(current_user, oid, 'TRIGGER') AS trigger,
            has_table_privilege(current_user, oid, 'DELETE') AS delete,
            ARRAY(SELECT attname FROM pg_attribute
                   WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped
                     AND has_column_privilege(current_user, c.oid, attnum, 'UPDATE')
                   ORDER BY attname)::text[] AS updatable
       FROM pg_class c WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p') ORDER BY relname`,
    [SCHEMA],
  )) as Array<{ name: string; truncate: boolean; trigger: boolean; delete: boolean; updatable: string[] }>;
  for (const table of tables) {
    if (table.truncate) problems.push(`it may truncate ${table.name}`);
    if (table.trigger) problems.push(`it may add triggers to ${table.name}`);
    const allowed = WRITTEN_ONCE_COLUMNS[table.name];
    if (allowed === undefined) continue;
    if (table.delete) problems.push(`it may delete from ${table.name}`);
    const changeable = table.updatable.filter((column) => !allowed.includes(column));
    if (changeable.length > 0) problems.push(`it may update ${table.name} (${changeable.join(', ')})`);
  }
  return problems;
}

/**
 * Refuses to serve through a connection that may do more than the service needs (`excessLedgerPrivileges`): the
 * database's refusals of a change to the books hold only against a role that cannot lift them.
 */
export async function requireLeastPrivilege(dataSource: DataSource): Promise<void> {
  const problems = await excessLedgerPrivileges(dataSource);
  if (problems.length > 0)
    throw new Error(
      `the ledger's serving connection (DATABASE_URL) may do more than the service needs: ${problems.join('; ')}. ` +
        'Serve as a role holding only the grants of the ledger migrations and migrate with the owner ' +
        '(MIGRATION_DATABASE_URL): docs/operating.md#the-ledgers-database-roles',
    );
}
