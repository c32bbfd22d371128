import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { getBalance, newPublicId } from '@gateway/contracts';
import {
  aPaymentEvent,
  createTestDatabase,
  infrastructureUrls,
  waitFor,
  type TestDatabase,
} from '@gateway/testkit';
import { startLedgerService } from '../src/main';
import { createRuntimeRole, excessLedgerPrivileges, LEDGER_RUNTIME_ROLE } from '../src/persistence';
import { ledgerServiceForTheseTests } from './support/ledger-service';

/** SQLSTATE insufficient_privilege: what PostgreSQL answers a role lacking a privilege, or not owning the table. */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * What the serving role holds on every table of the ledger's schema, and nothing more. A new table gets SELECT and
 * INSERT by default; one the service changes grants UPDATE in its migration, and joins this list.
 */
const EXPECTED_GRANTS: Record<string, string[]> = {
  adjustments: ['SELECT', 'INSERT'],
  balance_transactions: ['SELECT', 'INSERT'],
  balances: ['SELECT', 'INSERT', 'UPDATE'],
  disputes: ['SELECT', 'INSERT', 'UPDATE'],
  entries: ['SELECT', 'INSERT'],
  inbox: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  journals: ['SELECT', 'INSERT'],
  migrations: ['SELECT'],
  outbox: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  payout_accounts: ['SELECT', 'INSERT', 'UPDATE'],
  payouts: ['SELECT', 'INSERT', 'UPDATE'],
  reconciliation_items: ['SELECT', 'INSERT'],
  reconciliation_slots: ['SELECT', 'INSERT'],
  reconciliations: ['SELECT', 'INSERT'],
  reservations: ['SELECT', 'INSERT', 'UPDATE'],
  settlements: ['SELECT', 'INSERT', 'UPDATE'],
  statement_closings: ['SELECT', 'INSERT'],
  suspense_funds: ['SELECT', 'INSERT', 'UPDATE'],
};

const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];

async function refusedCode(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

describe('the ledger serves as a role that can neither change nor remove what the books hold', () => {
  const bed = ledgerServiceForTheseTests('ledger-runtime-role');
  /** A payment posted through the service's normal path: its journal, entries and balance transaction. */
  let journalId: number;
  let balanceTransactionId: string;
  /** Runs one statement as the service does, through its own connection. */
  const asService = (text: string, params: unknown[] = []) => bed.service.dataSource.query(text, params);

  beforeAll(async () => {
    const businessId = newPublicId('biz');
    const event = aPaymentEvent({
      business_id: businessId,
      status: 'paid',
      amount_centavos: 10_000,
      fee_centavos: 199,
    });
    await bed.confirm(event);
    const [journal] = await bed.sql<{ id: string }>(`SELECT id FROM journals WHERE cause_key = $1`, [
      event.event_id,
    ]);
    journalId = Number(journal!.id);
    const [btx] = await bed.sql<{ id: string }>(`SELECT id FROM balance_transactions WHERE journal_id = $1`, [
      journalId,
    ]);
    balanceTransactionId = btx!.id;
    // The settlement sweep, as the service, made it available (no delay here): the one update it may make.
    await waitFor(async () => {
      const reply = await bed.request(getBalance, { business_id: businessId });
      return reply.ok && reply.result.available_centavos === 9_801 ? true : undefined;
    });
  });

  test('the service connects as ledger_runtime, which owns nothing and holds no more than it needs', async () => {
    expect(await asService('SELECT current_user AS role')).toEqual([{ role: LEDGER_RUNTIME_ROLE }]);
    expect(await excessLedgerPrivileges(bed.service.dataSource)).toEqual([]);
    const [status] = await bed.sql<{ status: string }>(
      `SELECT status FROM balance_transactions WHERE id = $1`,
      [balanceTransactionId],
    );
    expect(status!.status).toBe('available');
  });

  test.each([
    [
      'update an entry',
      () => `UPDATE entries SET amount_centavos = amount_centavos + 1 WHERE journal_id = ${journalId}`,
    ],
    ['delete an entry', () => `DELETE FROM entries WHERE journal_id = ${journalId}`],
    ['update a journal', () => `UPDATE journals SET kind = 'x' WHERE id = ${journalId}`],
    ['delete a journal', () => `DELETE FROM journals WHERE id = ${journalId}`],
    [
      "update a balance transaction's amount",
      () => `UPDATE balance_transactions SET amount_centavos = 1 WHERE journal_id = ${journalId}`,
    ],
    [
      'delete a balance transaction',
      () => `DELETE FROM balance_transactions WHERE journal_id = ${journalId}`,
    ],
    ['truncate the entries', () => `TRUNCATE entries`],
    ['truncate the journals', () => `TRUNCATE journals CASCADE`],
    ['truncate the balance transactions', () => `TRUNCATE balance_transactions`],
    ['truncate the balances', () => `TRUNCATE balances`],
    ['truncate the outbox', () => `TRUNCATE outbox`],
    ['disable the triggers of the entries', () => `ALTER TABLE entries DISABLE TRIGGER ALL`],
    ['disable one trigger of the journals', () => `ALTER TABLE journals DISABLE TRIGGER journals_immutable`],
    ['drop a trigger', () => `DROP TRIGGER entries_immutable ON entries`],
    [
      'replace a trigger function',
      () => `CREATE OR REPLACE FUNCTION refuse_book_change() RETURNS trigger
       LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
    ],
    [
      'add a trigger',
      () =>
        `CREATE TRIGGER sneaky BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION refuse_book_change()`,
    ],
    ['create a table', () => `CREATE TABLE ledger.shadow_entries (id bigint)`],
    ['drop a table', () => `DROP TABLE statement_closings`],
    ['change its own role', () => `ALTER ROLE ${LEDGER_RUNTIME_ROLE} SUPERUSER`],
  ])('it cannot %s', async (_what, statement) => {
    expect(await refusedCode(() => asService(statement()))).toBe(INSUFFICIENT_PRIVILEGE);
  });

  test('what it was refused changed nothing: the entries and triggers are all there', async () => {
    const [entries] = await bed.sql<{ n: string }>(
      `SELECT count(*) AS n FROM entries WHERE journal_id = $1`,
      [journalId],
    );
    expect(Number(entries!.n)).toBe(3);
    const disabled = await bed.sql(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = 'ledger.entries'::regclass AND tgenabled = 'D'`,
    );
    expect(disabled).toEqual([]);
  });

  test('every table of the schema grants it exactly what the service needs (a new table joins the list)', async () => {
    const tables = await bed.sql<{ name: string; privileges: string[] }>(
      `SELECT c.relname AS name,
              ARRAY(SELECT p FROM unnest($1::text[]) WITH ORDINALITY AS t(p, n)
                     WHERE has_table_privilege($2, c.oid, p) ORDER BY n)::text[] AS privileges
         FROM pg_class c WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY 1`,
      [TABLE_PRIVILEGES, LEDGER_RUNTIME_ROLE],
    );
    expect(Object.fromEntries(tables.map((t) => [t.name, t.privileges]))).toEqual(EXPECTED_GRANTS);
    // Besides its table grants: a settled balance transaction's status, and no other column of any table.
    const columns = await bed.sql<{ table_name: string; column_name: string }>(
      `SELECT c.relname AS table_name, a.attname AS column_name
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
        WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0
          AND NOT a.attisdropped AND has_column_privilege($1, c.oid, a.attnum, 'UPDATE')
          AND NOT has_table_privilege($1, c.oid, 'UPDATE')`,
      [LEDGER_RUNTIME_ROLE],
    );
    expect(columns).toEqual([{ table_name: 'balance_transactions', column_name: 'status' }]);
  });

  test('a table the owner makes later grants it reading and adding rows, nothing more', async () => {
    await bed.sql(`CREATE TABLE ledger.later_table (id bigserial PRIMARY KEY, note text)`);
    try {
      await asService(`INSERT INTO later_table (note) VALUES ('added')`);
      expect(await asService(`SELECT note FROM later_table`)).toEqual([{ note: 'added' }]);
      expect(await refusedCode(() => asService(`UPDATE later_table SET note = 'changed'`))).toBe(
        INSUFFICIENT_PRIVILEGE,
      );
      expect(await refusedCode(() => asService(`DELETE FROM later_table`))).toBe(INSUFFICIENT_PRIVILEGE);
      expect(await refusedCode(() => asService(`TRUNCATE later_table`))).toBe(INSUFFICIENT_PRIVILEGE);
    } finally {
      await bed.sql(`DROP TABLE ledger.later_table`);
    }
  });

  test("the owner's connection is what the check refuses: a superuser that owns everything", async () => {
    const owner = await new DataSource({ type: 'postgres', url: bed.env.config.DATABASE_URL }).initialize();
    try {
      const problems = await excessLedgerPrivileges(owner);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/is a superuser$/),
          'it owns schema ledger',
          expect.stringMatching(/^it owns .*\bentries\b.*refuse_book_change\(\)/),
          'it may truncate entries',
          'it may delete from entries',
        ]),
      );
    } finally {
      await owner.destroy();
    }
  });
});

describe('in production the ledger refuses to serve through a connection allowed more than it needs', () => {
  const bed = ledgerServiceForTheseTests('ledger-production-role');
  /**
   * A serving login holding the serving role's grants that also owns one table of the books, no superuser: as an
   * operator may misconfigure it.
   */
  const tableOwner = `ledger_test_owner_${randomBytes(4).toString('hex')}`;
  const databases: TestDatabase[] = [];

  const urlAs = (base: string, user: string) => {
    const url = new URL(base);
    url.username = user;
    return url.toString();
  };
  const production = (settings: { DATABASE_URL: string; MIGRATION_DATABASE_URL?: string }) => ({
    ...bed.ledgerConfig,
    APP_ENV: 'production' as const,
    MIGRATION_DATABASE_URL: undefined,
    ...settings,
  });

  afterAll(async () => {
    for (const database of databases) await database.drop();
    // The role owns nothing any more (the test gave its table back): it goes, with the server's administrator.
    const admin = await new DataSource({
      type: 'postgres',
      url: infrastructureUrls().databaseUrl,
    }).initialize();
    try {
      await admin.query(`DROP ROLE IF EXISTS ${tableOwner}`);
    } finally {
      await admin.destroy();
    }
  });

  test('serving as the administrator (a superuser, the owner of every table) is refused before any work', async () => {
    const admin = bed.env.config.DATABASE_URL;
    await expect(
      startLedgerService(production({ DATABASE_URL: admin, MIGRATION_DATABASE_URL: admin })),
    ).rejects.toThrow(
      /serving connection \(DATABASE_URL\) may do more than the service needs: .*is a superuser.*it owns schema ledger/,
    );
  });

  test('serving as the owner of a table, no superuser, is refused', async () => {
    await bed.sql(`CREATE ROLE ${tableOwner} LOGIN IN ROLE ${LEDGER_RUNTIME_ROLE}`);
    await bed.sql(`ALTER TABLE ledger.statement_closings OWNER TO ${tableOwner}`);
    try {
      await expect(
        startLedgerService(production({ DATABASE_URL: urlAs(bed.env.config.DATABASE_URL, tableOwner) })),
      ).rejects.toThrow(/it owns statement_closings.*it may truncate statement_closings/);
    } finally {
      await bed.sql(`ALTER TABLE ledger.statement_closings OWNER TO CURRENT_USER`);
    }
  });

  test('without MIGRATION_DATABASE_URL it does not migrate, and refuses a schema not migrated', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    await expect(
      startLedgerService(production({ DATABASE_URL: urlAs(database.url, LEDGER_RUNTIME_ROLE) })),
    ).rejects.toThrow(/schema ledger is not migrated \(pending: .*RuntimeRole1764402000000/);
  });

  test('serving as ledger_runtime on a migrated schema, without the owner, it starts', async () => {
    const service = await startLedgerService(
      production({ DATABASE_URL: urlAs(bed.env.config.DATABASE_URL, LEDGER_RUNTIME_ROLE) }),
    );
    try {
      expect(await service.dataSource.query('SELECT current_user AS role')).toEqual([
        { role: LEDGER_RUNTIME_ROLE },
      ]);
    } finally {
      await service.stop();
    }
  });
});

describe("the sandbox's role, one for the whole server", () => {
  test('created by many processes at once (each test database starts its ledger), it is made once and none fails', async () => {
    const role = `ledger_test_race_${randomBytes(4).toString('hex')}`;
    const admin = await new DataSource({
      type: 'postgres',
      url: infrastructureUrls().databaseUrl,
    }).initialize();
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const racer = `${role}_${attempt}`;
        await Promise.all(
          Array.from({ length: 8 }, () => createRuntimeRole(infrastructureUrls().databaseUrl, 'pw', racer)),
        );
        const found = (await admin.query('SELECT rolcanlogin FROM pg_roles WHERE rolname = $1', [
          racer,
        ])) as Array<{ rolcanlogin: boolean }>;
        expect(found).toEqual([{ rolcanlogin: true }]);
        await admin.query(`DROP ROLE "${racer}"`);
      }
    } finally {
      for (let attempt = 0; attempt < 5; attempt += 1)
        await admin.query(`DROP ROLE IF EXISTS "${role}_${attempt}"`);
      await admin.destroy();
    }
  });
});
