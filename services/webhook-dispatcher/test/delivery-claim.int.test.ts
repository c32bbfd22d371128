import { DataSource } from 'typeorm';
import { claimDueDeliveries } from '../src/persistence';
import { Harness } from './support/harness';

/**
 * The claim the delivery worker makes after every attempt, against the dispatcher's own tables: what it claims, and
 * how much of the deliveries table it reads to find that out.
 */
describe('claiming due deliveries', () => {
  const WEBHOOKS = 120;
  let harness: Harness;
  let dataSource: DataSource;

  beforeAll(async () => {
    harness = await Harness.create('delivery-claim');
    // A dispatcher migrates the tables; the claims below are this test's own, so none runs beside them.
    await harness.stopDispatcher(await harness.startDispatcher());
    dataSource = await new DataSource({
      type: 'postgres',
      url: harness.env.config.DATABASE_URL,
      extra: { options: '-c search_path=webhook_dispatcher', max: 1 },
    }).initialize();
    await harness.query(
      `INSERT INTO webhooks (id, business_id, url, events, status, secret_sealed)
       SELECT 'wh_claim_' || i, 'biz_claim_' || i, 'https://receiver.test/' || i, '{payment.created}', 'active', 'sealed'
         FROM generate_series(1, $1::int) i`,
      [WEBHOOKS],
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await harness.close();
  });

  /** Deliveries made due and then delivered, as the worker leaves them: each a row the due index still points at. */
  const deliveredHistory = async (label: string, perWebhook: number) => {
    await harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at)
       SELECT 'dl_' || $1 || '_' || w || '_' || n, 'wh_claim_' || w, 'ev_' || $1 || '_' || w || '_' || n,
              'payment.created', repeat('{}', 200), 'pending', now() - interval '1 minute'
         FROM generate_series(1, $2::int) w, generate_series(1, $3::int) n`,
      [label, WEBHOOKS, perWebhook],
    );
    await harness.query(
      `UPDATE deliveries SET status = 'delivered', next_attempt_at = NULL, attempt_count = 1
        WHERE id LIKE 'dl_' || $1 || '_%'`,
      [label],
    );
  };

  const claim = (manager = dataSource.manager, held: string[] = []) =>
    claimDueDeliveries(manager, {
      workerId: 'claim-test',
      leaseMs: 30_000,
      skipWebhooks: [],
      maxPerWebhook: 2,
      limit: 10,
      held,
    });

  test('a claim reads the due deliveries once, not once per webhook', async () => {
    // Delivered rows stay in the due index until a vacuum: this database never runs one during the test.
    await deliveredHistory('history', 10);
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      // Blocks of the deliveries table and its indexes this transaction has read so far.
      const fetched = async () =>
        Number(
          (
            await runner.query(
              `SELECT sum(pg_stat_get_xact_blocks_fetched(oid))::bigint AS n FROM pg_class
                WHERE oid = 'deliveries'::regclass
                   OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'deliveries'::regclass)`,
            )
          )[0].n,
        );
      const [{ pages }] = await runner.query(
        `SELECT ((pg_relation_size('deliveries') + pg_relation_size('deliveries_due'))
                 / current_setting('block_size')::int)::int AS pages`,
      );
      const before = await fetched();
      expect(await claim(runner.manager)).toEqual([]);
      const read = (await fetched()) - before;
      // At most one pass over the table and its due index (the plan this replaced read them once per live webhook).
      expect(read).toBeLessThanOrEqual(pages);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  test('due deliveries are claimed oldest first, a few per webhook, never twice', async () => {
    await harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at)
       VALUES ('dl_due_a1', 'wh_claim_1', 'ev_due_a1', 'payment.created', '{}', 'pending', now() - interval '40 s'),
              ('dl_due_a2', 'wh_claim_1', 'ev_due_a2', 'payment.created', '{}', 'pending', now() - interval '30 s'),
              ('dl_due_a3', 'wh_claim_1', 'ev_due_a3', 'payment.created', '{}', 'pending', now() - interval '20 s'),
              ('dl_due_b1', 'wh_claim_2', 'ev_due_b1', 'payment.created', '{}', 'pending', now() - interval '35 s'),
              ('dl_later', 'wh_claim_3', 'ev_later', 'payment.created', '{}', 'pending', now() + interval '1 hour')`,
    );
    await harness.query(`UPDATE webhooks SET status = 'inactive' WHERE id = 'wh_claim_4'`);
    await harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at)
       VALUES ('dl_inactive', 'wh_claim_4', 'ev_inactive', 'payment.created', '{}', 'pending', now() - interval '1 hour')`,
    );

    const first = await claim();
    expect(first.map((d) => d.id)).toEqual(['dl_due_a1', 'dl_due_b1', 'dl_due_a2']);
    expect(first[0]).toMatchObject({ webhook_id: 'wh_claim_1', url: 'https://receiver.test/1' });
    const second = await claim();
    expect(second.map((d) => d.id)).toEqual(['dl_due_a3']);
    expect(await claim()).toEqual([]);
  });
});
