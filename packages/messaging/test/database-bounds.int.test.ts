import { serviceDataSource } from '@gateway/persistence';
import { createTestDatabase, type TestDatabase } from '@gateway/testkit-core';
import type { DataSource } from 'typeorm';
import { failureKind } from '../src';

const IDLE_BOUND_MS = 400;
const STATEMENT_BOUND_MS = 2000;

/** A process that froze (SIGSTOP, a stalled event loop) in the middle of a transaction keeps its row locks. */
describe('a transaction or a statement outliving its bound ends with a transient failure', () => {
  let database: TestDatabase;
  let frozenHolder: DataSource;
  let replica: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    const options = {
      url: database.url,
      schema: 'public',
      entities: [],
      migrations: [],
      statementTimeoutMs: STATEMENT_BOUND_MS,
      idleInTransactionTimeoutMs: IDLE_BOUND_MS,
    };
    frozenHolder = await serviceDataSource(options).initialize();
    replica = await serviceDataSource(options).initialize();
    await replica.query(`CREATE TABLE charges (id text PRIMARY KEY, status text NOT NULL)`);
    await replica.query(`INSERT INTO charges VALUES ('c1', 'open')`);
  });

  afterAll(async () => {
    await frozenHolder.destroy();
    await replica.destroy();
    await database.drop();
  });

  test('the locks of a transaction left idle are released, and its holder learns it must retry', async () => {
    const holder = frozenHolder.createQueryRunner();
    await holder.startTransaction();
    await holder.query(`SELECT * FROM charges WHERE id = 'c1' FOR UPDATE`);
    const started = Date.now();
    // Waits behind the frozen holder's lock until the server ends the holder's session.
    await replica.query(`UPDATE charges SET status = 'paid' WHERE id = 'c1'`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_BOUND_MS - 50);
    const resumed = await holder
      .query(`UPDATE charges SET status = 'expired' WHERE id = 'c1'`)
      .catch((e) => e);
    expect(resumed).toBeInstanceOf(Error);
    expect(failureKind(resumed)).toBe('transient');
    await holder.release();
    expect(await replica.query(`SELECT status FROM charges WHERE id = 'c1'`)).toEqual([{ status: 'paid' }]);
  });

  test('a statement running past its bound is cancelled as a transient failure', async () => {
    const cancelled = await replica.query(`SELECT pg_sleep(5)`).catch((e) => e);
    expect(cancelled).toBeInstanceOf(Error);
    expect(failureKind(cancelled)).toBe('transient');
  });
});
