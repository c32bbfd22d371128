import { openServiceDatabase, type ServiceDatabaseOptions } from '@gateway/persistence';
import { createTestDatabase } from './isolation';
import { startedForTheseTests } from './started-for-tests';

/**
 * A service's schema, migrated into a fresh database before the enclosing describe's tests and dropped after them:
 * for tests of what the schema itself guarantees (its constraints and triggers), with no service running.
 */
export function migratedSchemaForTheseTests(schema: Omit<ServiceDatabaseOptions, 'url'>): {
  readonly dataSource: Awaited<ReturnType<typeof openServiceDatabase>>;
} {
  return startedForTheseTests(async () => {
    const database = await createTestDatabase();
    const dataSource = await openServiceDatabase({ url: database.url, ...schema });
    return {
      dataSource,
      async close() {
        await dataSource.destroy();
        await database.drop();
      },
    };
  });
}
