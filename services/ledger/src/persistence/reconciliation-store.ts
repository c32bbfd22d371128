import type { EntityManager } from 'typeorm';
import type { Reconciliation, ReconciliationItem, TokenHolding } from '@gateway/contracts';
import type { BookedMovement } from '../domain/reconciliation';

/** `cash_psp`'s balance (debits positive) from the journals written up to `asOf`. */
export async function cashPspAsOf(manager: EntityManager, asOf: Date): Promise<number> {
  const [row] = (await manager.query(
    `SELECT COALESCE(SUM(e.amount_centavos), 0)::text AS total
       FROM entries e JOIN journals j ON j.id = e.journal_id
      WHERE e.account = 'cash_psp' AND j.created_at <= $1`,
    [asOf],
  )) as Array<{ total: string }>;
  return Number(row!.total);
}

/** Each token account's quantity in base units from the journals written up to `asOf`. */
export async function tokenQuantitiesAsOf(manager: EntityManager, asOf: Date): Promise<Map<string, bigint>> {
  const rows = (await manager.query(
    `SELECT e.account, COALESCE(SUM(e.quantity_base_units), 0)::text AS quantity
       FROM entries e JOIN journals j ON j.id = e.journal_id
      WHERE e.account LIKE 'tokens:%' AND j.created_at <= $1
      GROUP BY e.account`,
    [asOf],
  )) as Array<{ account: string; quantity: string }>;
  return new Map(rows.map((row) => [row.account, BigInt(row.quantity)]));
}

interface MovementRow {
  rail_reference: string;
  kind: string;
  cash: string;
  created_at: Date;
}

const movementOf = (row: MovementRow): BookedMovement => ({
  reference: row.rail_reference,
  kind: row.kind,
  cashPspCentavos: Number(row.cash),
  createdAt: row.created_at,
});

/** The journals written up to `asOf` naming any of `references`, with what each moved in `cash_psp`. */
export async function movementsByReference(
  manager: EntityManager,
  references: readonly string[],
  asOf: Date,
): Promise<Map<string, BookedMovement[]>> {
  const byReference = new Map<string, BookedMovement[]>();
  if (references.length === 0) return byReference;
  const rows = (await manager.query(
    `SELECT j.rail_reference, j.kind, j.created_at,
            COALESCE(SUM(e.amount_centavos) FILTER (WHERE e.account = 'cash_psp'), 0)::text AS cash
       FROM journals j JOIN entries e ON e.journal_id = j.id
      WHERE j.rail_reference = ANY($1) AND j.created_at <= $2
      GROUP BY j.id`,
    [references, asOf],
  )) as MovementRow[];
  for (const row of rows) {
    const list = byReference.get(row.rail_reference) ?? [];
    list.push(movementOf(row));
    byReference.set(row.rail_reference, list);
  }
  return byReference;
}

/** The journals naming a reference that moved `cash_psp`, written in [from, to]. */
export async function cashMovementsWrittenIn(
  manager: EntityManager,
  from: Date,
  to: Date,
): Promise<BookedMovement[]> {
  const rows = (await manager.query(
    `SELECT j.rail_reference, j.kind, j.created_at, SUM(e.amount_centavos)::text AS cash
       FROM journals j JOIN entries e ON e.journal_id = j.id
      WHERE j.rail_reference IS NOT NULL AND j.created_at BETWEEN $1 AND $2 AND e.account = 'cash_psp'
      GROUP BY j.id`,
    [from, to],
  )) as MovementRow[];
  return rows.map(movementOf);
}

/**
 * Claims a scheduled run's slot (its interval's number since the epoch): true for the one replica that claimed it, so
 * each slot is run once however many replicas' timers fire.
 */
export async function claimReconciliationSlot(manager: EntityManager, slot: number): Promise<boolean> {
  const rows = (await manager.query(
    `INSERT INTO reconciliation_slots (slot) VALUES ($1) ON CONFLICT (slot) DO NOTHING RETURNING slot`,
    [slot],
  )) as unknown[];
  return rows.length > 0;
}

/** Stores a run and its report's items, in one transaction. */
export async function insertReconciliation(manager: EntityManager, run: Reconciliation): Promise<void> {
  await manager.query(
    `INSERT INTO reconciliations (id, status, trigger, period_from, period_to, started_at, finished_at,
       failure_reason, psp_balance_centavos, books_cash_psp_centavos, psp_received_centavos, psp_sent_centavos,
       tokens, difference_count, pending_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      run.reconciliation_id,
      run.status,
      run.trigger,
      run.period_from,
      run.period_to,
      run.started_at,
      run.finished_at,
      run.failure_reason,
      run.psp_balance_centavos,
      run.books_cash_psp_centavos,
      run.psp_received_centavos,
      run.psp_sent_centavos,
      JSON.stringify(run.tokens),
      run.difference_count,
      run.pending_count,
    ],
  );
  const items = [
    ...run.differences.map((item) => ({ item, pending: false })),
    ...run.pending.map((item) => ({ item, pending: true })),
  ];
  for (const [position, { item, pending }] of items.entries())
    await manager.query(
      `INSERT INTO reconciliation_items (reconciliation_id, position, pending, kind, rail, reference, rail_centavos,
         books_centavos, rail_base_units, books_base_units, occurred_at, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        run.reconciliation_id,
        position,
        pending,
        item.kind,
        item.rail,
        item.reference,
        item.rail_centavos,
        item.books_centavos,
        item.rail_base_units,
        item.books_base_units,
        item.occurred_at,
        item.detail,
      ],
    );
}

interface RunRow {
  id: string;
  status: Reconciliation['status'];
  trigger: Reconciliation['trigger'];
  period_from: Date;
  period_to: Date;
  started_at: Date;
  finished_at: Date;
  failure_reason: string | null;
  psp_balance_centavos: string | null;
  books_cash_psp_centavos: string | null;
  psp_received_centavos: string | null;
  psp_sent_centavos: string | null;
  tokens: TokenHolding[];
  difference_count: number;
  pending_count: number;
}

interface ItemRow {
  reconciliation_id: string;
  pending: boolean;
  kind: ReconciliationItem['kind'];
  rail: ReconciliationItem['rail'];
  reference: string | null;
  rail_centavos: string | null;
  books_centavos: string | null;
  rail_base_units: string | null;
  books_base_units: string | null;
  occurred_at: Date | null;
  detail: string;
}

const numberOrNull = (value: string | null): number | null => (value === null ? null : Number(value));

function itemOf(row: ItemRow): ReconciliationItem {
  return {
    kind: row.kind,
    rail: row.rail,
    reference: row.reference,
    rail_centavos: numberOrNull(row.rail_centavos),
    books_centavos: numberOrNull(row.books_centavos),
    rail_base_units: row.rail_base_units,
    books_base_units: row.books_base_units,
    occurred_at: row.occurred_at?.toISOString() ?? null,
    detail: row.detail,
  };
}

async function withItems(manager: EntityManager, runs: RunRow[]): Promise<Reconciliation[]> {
  if (runs.length === 0) return [];
  const items = (await manager.query(
    `SELECT reconciliation_id, pending, kind, rail, reference, rail_centavos::text, books_centavos::text,
            rail_base_units::text, books_base_units::text, occurred_at, detail
       FROM reconciliation_items WHERE reconciliation_id = ANY($1) ORDER BY reconciliation_id, position`,
    [runs.map((run) => run.id)],
  )) as ItemRow[];
  return runs.map((run) => {
    const own = items.filter((row) => row.reconciliation_id === run.id);
    return {
      reconciliation_id: run.id,
      status: run.status,
      trigger: run.trigger,
      period_from: run.period_from.toISOString(),
      period_to: run.period_to.toISOString(),
      started_at: run.started_at.toISOString(),
      finished_at: run.finished_at.toISOString(),
      failure_reason: run.failure_reason,
      psp_balance_centavos: numberOrNull(run.psp_balance_centavos),
      books_cash_psp_centavos: numberOrNull(run.books_cash_psp_centavos),
      psp_received_centavos: numberOrNull(run.psp_received_centavos),
      psp_sent_centavos: numberOrNull(run.psp_sent_centavos),
      tokens: run.tokens,
      difference_count: run.difference_count,
      pending_count: run.pending_count,
      differences: own.filter((row) => !row.pending).map(itemOf),
      pending: own.filter((row) => row.pending).map(itemOf),
    };
  });
}

const RUN_COLUMNS = `id, status, trigger, period_from, period_to, started_at, finished_at, failure_reason,
  psp_balance_centavos::text, books_cash_psp_centavos::text, psp_received_centavos::text, psp_sent_centavos::text,
  tokens, difference_count, pending_count`;

export async function findReconciliation(manager: EntityManager, id: string): Promise<Reconciliation | null> {
  const rows = (await manager.query(`SELECT ${RUN_COLUMNS} FROM reconciliations WHERE id = $1`, [
    id,
  ])) as RunRow[];
  return (await withItems(manager, rows))[0] ?? null;
}

/**
 * A page of runs, newest first (start, then id); undefined when `startingAfter` names no run (keyset pagination,
 * docs/adr/0013-keyset-pagination.md).
 */
export async function listReconciliationsPage(
  manager: EntityManager,
  page: { limit: number; startingAfter: string | null },
): Promise<{ rows: Reconciliation[]; hasMore: boolean } | undefined> {
  const params: unknown[] = [page.limit + 1];
  let after = '';
  if (page.startingAfter !== null) {
    const known = (await manager.query(`SELECT 1 FROM reconciliations WHERE id = $1`, [
      page.startingAfter,
    ])) as unknown[];
    if (known.length === 0) return undefined;
    params.push(page.startingAfter);
    after = `WHERE (started_at, id) < (SELECT started_at, id FROM reconciliations WHERE id = $2)`;
  }
  const rows = (await manager.query(
    `SELECT ${RUN_COLUMNS} FROM reconciliations ${after} ORDER BY started_at DESC, id DESC LIMIT $1`,
    params,
  )) as RunRow[];
  const runs = await withItems(manager, rows.slice(0, page.limit));
  return { rows: runs, hasMore: rows.length > page.limit };
}

/** What the metrics say of the newest completed run: when it finished, and its differences by rail. */
export interface NewestComparison {
  finishedAt: Date;
  differences: Record<ReconciliationItem['rail'], number>;
}

/**
 * The newest completed run (by start, as the list orders them) and its differences by rail, whichever replica ran
 * it; null before any run compared the books with the rails. A failed run compared nothing, so it is passed over.
 */
export async function newestComparison(manager: EntityManager): Promise<NewestComparison | null> {
  const rows = (await manager.query(
    `SELECT r.finished_at,
            count(*) FILTER (WHERE i.rail = 'pix')::int AS pix,
            count(*) FILTER (WHERE i.rail = 'solana')::int AS solana
       FROM (SELECT id, finished_at FROM reconciliations WHERE status = 'completed'
              ORDER BY started_at DESC, id DESC LIMIT 1) r
       LEFT JOIN reconciliation_items i ON i.reconciliation_id = r.id AND NOT i.pending
      GROUP BY r.id, r.finished_at`,
  )) as Array<{ finished_at: Date; pix: number; solana: number }>;
  const [row] = rows;
  return row === undefined
    ? null
    : { finishedAt: row.finished_at, differences: { pix: row.pix, solana: row.solana } };
}
