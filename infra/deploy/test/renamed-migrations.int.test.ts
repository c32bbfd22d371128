import type { ServiceName } from '@gateway/contracts';
import { migrateServiceDatabase, type RuntimeConfig } from '@gateway/service-runtime';
import { serviceDataSource, type RenamedMigration } from '@gateway/persistence';
import { createTestDatabase, type TestDatabase } from '@gateway/testkit';
import { serviceDatabases, type ServiceDatabase } from './support/service-databases';

/** A TypeORM migration, as far as this test runs one. */
type Migration = new () => {
  name?: string;
  up(runner: unknown): Promise<unknown>;
  down(runner: unknown): Promise<unknown>;
};
type Renamed = Migration & Pick<RenamedMigration, 'formerName'>;

const isRenamed = (migration: unknown): migration is Renamed =>
  typeof (migration as Partial<RenamedMigration>).formerName === 'string';

/** Every migration released under another name, with its service. */
const renamed = (Object.entries(serviceDatabases) as Array<[ServiceName, ServiceDatabase]>).flatMap(
  ([service, database]) =>
    (database.migrations as unknown[])
      .filter(isRenamed)
      .map((migration) => ({ service, database, migration })),
);

/** The migration as it was released: the same steps under its former name. */
function releasedAs(migration: Renamed): Migration {
  return class {
    name = migration.formerName;
    up = (runner: unknown) => new migration().up(runner);
    down = (runner: unknown) => new migration().down(runner);
  };
}

/** Migrates as `pnpm migrate` and a starting service do. */
function migrate(
  service: ServiceName,
  database: ServiceDatabase,
  url: string,
  migrations: ServiceDatabase['migrations'],
) {
  const config: RuntimeConfig = { DATABASE_URL: url, AMQP_URL: '', AMQP_PREFIX: '', LOG_LEVEL: 'silent' };
  return migrateServiceDatabase({ service, config, ...database, migrations });
}

async function migrationsTable(
  url: string,
  schema: string,
): Promise<Array<{ name: string; timestamp: string }>> {
  const dataSource = await serviceDataSource({ url, schema, entities: [], migrations: [] }).initialize();
  try {
    return await dataSource.query(`SELECT name, timestamp::text FROM "${schema}".migrations ORDER BY id`);
  } finally {
    await dataSource.destroy();
  }
}

describe('a migration renamed after its release', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  test('there are some: the checkout and payment migrations that shared a timestamp with another', () => {
    expect(renamed.map(({ migration }) => migration.formerName).sort()).toEqual([
      'Checkouts1732300003000',
      'PaymentPages1732400040000',
    ]);
  });

  test.each(renamed.map((entry) => [entry.migration.name, entry] as const))(
    '%s is not run again on a database that ran it under its former name, and is recorded under its new one',
    async (_name, { service, database: serviceDatabase, migration }) => {
      const released = serviceDatabase.migrations.map((m) => (m === migration ? releasedAs(migration) : m));
      await migrate(service, serviceDatabase, database.url, released);
      const before = await migrationsTable(database.url, serviceDatabase.schema);
      expect(before.map((row) => row.name)).toContain(migration.formerName);

      // Run again under the new name, its steps (CREATE TABLE, ALTER TABLE ... ADD) would fail on what they made.
      await migrate(service, serviceDatabase, database.url, serviceDatabase.migrations);

      const after = await migrationsTable(database.url, serviceDatabase.schema);
      const { name } = migration;
      expect(after).toEqual(
        before.map((row) =>
          row.name === migration.formerName ? { name, timestamp: String(/\d{13}$/.exec(name)![0]) } : row,
        ),
      );
    },
  );
});
