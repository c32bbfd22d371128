import type { EntityManager } from 'typeorm';
import type { AdjustmentRecord } from '@gateway/contracts';

/** What an adjustment's row is made of, before the database gives it its time and balance transaction. */
export interface NewAdjustment {
  id: string;
  kind: AdjustmentRecord['kind'];
  businessId: string | null;
  amountCentavos: number;
  debitAccount: string;
  creditAccount: string;
  allowNegativeAvailable: boolean;
  reason: string;
  requestedBy: string;
  idempotencyKey: string | null;
  journalId: number;
  createdAt: Date;
}

interface AdjustmentRow {
  id: string;
  kind: AdjustmentRecord['kind'];
  business_id: string | null;
  amount_centavos: string;
  debit_account: string;
  credit_account: string;
  allow_negative_available: boolean;
  reason: string;
  requested_by: string;
  journal_id: string;
  balance_transaction_id: string | null;
  created_at: Date;
}

const COLUMNS = `id, kind, business_id, amount_centavos::text, debit_account, credit_account, allow_negative_available,
  reason, requested_by, journal_id::text, balance_transaction_id, created_at`;

const recordOf = (row: AdjustmentRow): AdjustmentRecord => ({
  adjustment_id: row.id,
  kind: row.kind,
  business_id: row.business_id,
  amount_centavos: Number(row.amount_centavos),
  debit_account: row.debit_account,
  credit_account: row.credit_account,
  allow_negative_available: row.allow_negative_available,
  reason: row.reason,
  requested_by: row.requested_by,
  journal_id: row.journal_id,
  balance_transaction_id: row.balance_transaction_id,
  created_at: row.created_at.toISOString(),
});

/**
 * Takes the Idempotency-Key until the transaction ends, so two requests under one key are decided one after the
 * other (the second finds the first's adjustment).
 */
export async function lockAdjustmentKey(manager: EntityManager, idempotencyKey: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('adjustment:' || $1, 0))`, [
    idempotencyKey,
  ]);
}

export async function findAdjustmentByKey(
  manager: EntityManager,
  idempotencyKey: string,
): Promise<AdjustmentRecord | null> {
  const rows = (await manager.query(`SELECT ${COLUMNS} FROM adjustments WHERE idempotency_key = $1`, [
    idempotencyKey,
  ])) as AdjustmentRow[];
  return rows[0] ? recordOf(rows[0]) : null;
}

/** Stores the adjustment beside its journal, naming the balance transaction that journal wrote (if any). */
export async function insertAdjustment(
  manager: EntityManager,
  row: NewAdjustment,
): Promise<AdjustmentRecord> {
  const [inserted] = (await manager.query(
    `INSERT INTO adjustments (id, kind, business_id, amount_centavos, debit_account, credit_account,
       allow_negative_available, reason, requested_by, idempotency_key, journal_id, balance_transaction_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
       (SELECT id FROM balance_transactions WHERE type = 'adjustment' AND source_id = $1), $12)
     RETURNING ${COLUMNS}`,
    [
      row.id,
      row.kind,
      row.businessId,
      row.amountCentavos,
      row.debitAccount,
      row.creditAccount,
      row.allowNegativeAvailable,
      row.reason,
      row.requestedBy,
      row.idempotencyKey,
      row.journalId,
      row.createdAt,
    ],
  )) as AdjustmentRow[];
  return recordOf(inserted!);
}

/**
 * A page of adjustments, newest first (creation, then id), of one business or all; undefined when `startingAfter`
 * names none of them (keyset pagination, docs/adr/0013-keyset-pagination.md).
 */
export async function listAdjustmentsPage(
  manager: EntityManager,
  page: { limit: number; startingAfter: string | null; businessId: string | null },
): Promise<{ rows: AdjustmentRecord[]; hasMore: boolean } | undefined> {
  const params: unknown[] = [page.limit + 1, page.businessId];
  const conditions = ['($2::text IS NULL OR business_id = $2)'];
  if (page.startingAfter !== null) {
    const known = (await manager.query(
      `SELECT 1 FROM adjustments WHERE id = $1 AND ($2::text IS NULL OR business_id = $2)`,
      [page.startingAfter, page.businessId],
    )) as unknown[];
    if (known.length === 0) return undefined;
    params.push(page.startingAfter);
    conditions.push(`(created_at, id) < (SELECT created_at, id FROM adjustments WHERE id = $3)`);
  }
  const rows = (await manager.query(
    `SELECT ${COLUMNS} FROM adjustments WHERE ${conditions.join(' AND ')}
      ORDER BY created_at DESC, id DESC LIMIT $1`,
    params,
  )) as AdjustmentRow[];
  return { rows: rows.slice(0, page.limit).map(recordOf), hasMore: rows.length > page.limit };
}
