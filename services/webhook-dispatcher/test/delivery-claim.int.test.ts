import { DataSource, type EntityManager } from 'typeorm';
import { claimDueDeliveries, type ClaimedDelivery } from '../src/persistence';
import { Harness } from './support/harness';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'CTE Name'?: string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/**
 * The claim the delivery worker makes after every attempt, against the dispatcher's own tables: what it claims, and
 * the plans it is run with on tables the planner knows nothing about (never analysed, never vacuumed).
 */
describe('claiming due deliveries', () => {
  const WEBHOOKS = 120;
  let harness: Harness;
  let dataSource: DataSource;
  /** A connection of its own to the dispatcher's tables, as a replica has. */
  const connect = () =>
    new DataSource({
      type: 'postgres',
      url: harness.env.config.DATABASE_URL,
      extra: { options: '-c search_path=webhook_dispatcher', max: 1 },
    }).initialize();

  beforeAll(async () => {
    harness = await Harness.create('delivery-claim');
    // A dispatcher migrates the tables; the claims below are this test's own, so none runs beside them.
    await harness.stopDispatcher(await harness.startDispatcher());
    // As on a server whose autovacuum is off, whatever this one's setting: no column statistics, and the entries of
    // delivered rows left in the due index.
    await harness.query('ALTER TABLE deliveries SET (autovacuum_enabled = off)');
    await harness.query('ALTER TABLE webhooks SET (autovacuum_enabled = off)');
    dataSource = await connect();
    await harness.query(
      `INSERT INTO webhooks (id, business_id, url, events, status, secret_sealed)
       SELECT 'wh_claim_' || i, 'biz_claim_' || i, 'https://receiver.test/' || i, '{payment.created}', 'active', 'sealed'
         FROM generate_series(1, $1::int) i`,
      [WEBHOOKS],
    );
  });

  afterEach(async () => {
    // Each test starts with nothing claimable, whatever the one before it left (or failed to clean up).
    await harness.query(`UPDATE deliveries SET status = 'cancelled' WHERE status = 'pending'`);
    await harness.query(`UPDATE webhooks SET status = 'active'`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await harness.close();
  });

  /** `perWebhook` deliveries of every webhook, due a minute ago (their ids start with `label`). */
  const dueDeliveries = (label: string, perWebhook: number) =>
    harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at)
       SELECT $1 || '_' || w || '_' || n, 'wh_claim_' || w, 'ev_' || $1 || '_' || w || '_' || n,
              'payment.created', repeat('{}', 200), 'pending', now() - interval '1 minute' + n * interval '1 ms'
         FROM generate_series(1, $2::int) w, generate_series(1, $3::int) n`,
      [label, WEBHOOKS, perWebhook],
    );

  interface ClaimOptions {
    skipWebhooks?: string[];
    held?: string[];
    limit?: number;
    workerId?: string;
    manager?: EntityManager;
  }
  /** A claim of at most two deliveries per webhook, by default a batch of 10 on the test's own connection. */
  const claim = (options: ClaimOptions = {}) =>
    claimDueDeliveries(options.manager ?? dataSource.manager, {
      workerId: options.workerId ?? 'claim-test',
      leaseMs: 30_000,
      skipWebhooks: options.skipWebhooks ?? [],
      maxPerWebhook: 2,
      limit: options.limit ?? 10,
      held: options.held ?? [],
    });

  /** Every statement a claim runs, with its parameters, run again under EXPLAIN ANALYZE and rolled back. */
  const plansOfAClaim = async (limit: number): Promise<PlanNode[]> => {
    const statements: Array<{ sql: string; parameters: unknown[] }> = [];
    const logQuery = jest.spyOn(dataSource.logger, 'logQuery').mockImplementation((sql, parameters) => {
      if (/deliveries/.test(sql)) statements.push({ sql, parameters: parameters ?? [] });
    });
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await claim({ manager: runner.manager, limit });
      // Before the EXPLAINs, which name the deliveries too.
      logQuery.mockRestore();
      const plans: PlanNode[] = [];
      for (const { sql, parameters } of statements) {
        const [explained] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters);
        plans.push((explained['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
      }
      return plans;
    } finally {
      logQuery.mockRestore();
      await runner.rollbackTransaction();
      await runner.release();
    }
  };

  /** Scans of the deliveries table (other than lookups by id) or of a CTE, run more than once in a plan. */
  const repeatedScans = (plans: PlanNode[]): string[] => {
    const found: string[] = [];
    const walk = (node: PlanNode) => {
      const ofDeliveries =
        node['Relation Name'] === 'deliveries' ||
        (node['Index Name']?.startsWith('deliveries') ?? false) ||
        node['CTE Name'] !== undefined;
      if (ofDeliveries && node['Index Name'] !== 'deliveries_pkey' && node['Actual Loops'] > 1)
        found.push(`${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? node['CTE Name']}`);
      for (const child of node.Plans ?? []) walk(child);
    };
    for (const plan of plans) walk(plan);
    return found;
  };

  test('no scan of the deliveries is repeated per webhook or per candidate, with nothing due and with a backlog', async () => {
    // Delivered rows the due index still holds: this table is never vacuumed.
    await dueDeliveries('history', 10);
    await harness.query(
      `UPDATE deliveries SET status = 'delivered', next_attempt_at = NULL WHERE id LIKE 'history_%'`,
    );
    const nothingDue = await plansOfAClaim(10);
    expect(nothingDue.length).toBeGreaterThan(0);
    expect(repeatedScans(nothingDue)).toEqual([]);

    // Every webhook's endpoint back at once: 1,200 deliveries due, of which the claim takes 32.
    await dueDeliveries('backlog', 10);
    const backlog = await plansOfAClaim(32);
    expect(backlog).toHaveLength(2);
    expect(repeatedScans(backlog)).toEqual([]);
  });

  test('due deliveries are claimed oldest first, a few per webhook, skipping what is held, never twice', async () => {
    await harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at)
       VALUES ('dl_due_a1', 'wh_claim_1', 'ev_due_a1', 'payment.created', '{}', 'pending', now() - interval '40 s'),
              ('dl_due_a2', 'wh_claim_1', 'ev_due_a2', 'payment.created', '{}', 'pending', now() - interval '30 s'),
              ('dl_due_a3', 'wh_claim_1', 'ev_due_a3', 'payment.created', '{}', 'pending', now() - interval '20 s'),
              ('dl_due_b1', 'wh_claim_2', 'ev_due_b1', 'payment.created', '{}', 'pending', now() - interval '35 s'),
              ('dl_due_c1', 'wh_claim_5', 'ev_due_c1', 'payment.created', '{}', 'pending', now() - interval '45 s'),
              ('dl_due_d1', 'wh_claim_6', 'ev_due_d1', 'payment.created', '{}', 'pending', now() - interval '50 s'),
              ('dl_later', 'wh_claim_3', 'ev_later', 'payment.created', '{}', 'pending', now() + interval '1 hour')`,
    );
    await harness.query(`UPDATE webhooks SET status = 'inactive' WHERE id = 'wh_claim_4'`);
    await harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at)
       VALUES ('dl_inactive', 'wh_claim_4', 'ev_inactive', 'payment.created', '{}', 'pending', now() - interval '1 hour')`,
    );
    const ids = (claimed: ClaimedDelivery[]) => claimed.map((delivery) => delivery.id);

    // wh_claim_5's endpoint is saturated in this process, and dl_due_d1 is already held by it.
    const first = await claim({ skipWebhooks: ['wh_claim_5'], held: ['dl_due_d1'] });
    expect(ids(first)).toEqual(['dl_due_a1', 'dl_due_b1', 'dl_due_a2']);
    expect(first[0]).toMatchObject({ webhook_id: 'wh_claim_1', url: 'https://receiver.test/1' });
    // A smaller batch takes the longest due of what is left.
    expect(ids(await claim({ limit: 1 }))).toEqual(['dl_due_d1']);
    expect(ids(await claim())).toEqual(['dl_due_c1', 'dl_due_a3']);
    expect(await claim()).toEqual([]);
    const [inactive] = await harness.query<{ lease_owner: string | null }>(
      `SELECT lease_owner FROM deliveries WHERE id = 'dl_inactive'`,
    );
    expect(inactive).toEqual({ lease_owner: null });
  });

  test('two claims racing never lease the same delivery', async () => {
    await dueDeliveries('race', 3);
    await harness.query(`UPDATE webhooks SET status = 'inactive' WHERE id = 'wh_claim_7'`);
    const other = await connect();
    try {
      const leased: string[] = [];
      // Until neither finds anything left (each round leases at least one batch: 45 rounds at most).
      for (let round = 0; round < 100; round += 1) {
        const [a, b] = await Promise.all([
          claim({ workerId: 'racer-a', limit: 8 }),
          claim({ workerId: 'racer-b', limit: 8, manager: other.manager }),
        ]);
        if (a.length + b.length === 0) break;
        leased.push(...[...a, ...b].map((delivery) => delivery.id));
      }
      // Every one of them but those of wh_claim_7, made inactive above.
      expect(leased.filter((id) => id.startsWith('race_'))).toHaveLength((WEBHOOKS - 1) * 3);
      expect(leased.filter((id) => id.startsWith('race_7_'))).toEqual([]);
      expect(new Set(leased).size).toBe(leased.length);
    } finally {
      await other.destroy();
    }
  });
});
