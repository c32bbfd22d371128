import type { EntityManager } from 'typeorm';

// Money in suspense and disputes, as the ledger keeps them beside their journals (migration 1764400400000).

/** One sum of money in suspense, as booked. */
export interface SuspenseFundsRow {
  moneyKey: string;
  fundsId: string;
  status: 'held' | 'returned' | 'assigned';
  holdingAccount: string;
  /** Null when its BRL value was not known: nothing was booked for it. */
  amountCentavos: number | null;
  /** Tokens: the base units of the money (null for PIX, or when not known). */
  amountBaseUnits: string | null;
}

/**
 * Keeps money that came into suspense (booked by `journalId`, or null when its value is not known). The first record of
 * a sum of money keeps it; a later one only values money not valued yet. False when nothing changed.
 */
export async function keepSuspenseFunds(
  manager: EntityManager,
  row: {
    moneyKey: string;
    fundsId: string;
    kind: string;
    rail: string;
    paymentId: string;
    businessId: string | null;
    holdingAccount: string;
    amountCentavos: number | null;
    amountBaseUnits: string | null;
    journalId: number | null;
    receivedAt: Date;
  },
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `INSERT INTO suspense_funds AS f (money_key, funds_id, kind, rail, payment_id, business_id, holding_account,
       amount_centavos, amount_base_units, received_journal_id, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (money_key) DO UPDATE SET
       business_id = EXCLUDED.business_id, holding_account = EXCLUDED.holding_account,
       amount_centavos = EXCLUDED.amount_centavos, amount_base_units = EXCLUDED.amount_base_units,
       received_journal_id = EXCLUDED.received_journal_id
       WHERE f.amount_centavos IS NULL AND f.status = 'held' AND EXCLUDED.amount_centavos IS NOT NULL
     RETURNING money_key`,
    [
      row.moneyKey,
      row.fundsId,
      row.kind,
      row.rail,
      row.paymentId,
      row.businessId,
      row.holdingAccount,
      row.amountCentavos,
      row.amountBaseUnits,
      row.journalId,
      row.receivedAt,
    ],
  );
  return rows.length > 0;
}

/** The money in suspense under `moneyKey`, locked until the transaction ends; null when it never came in. */
export async function lockSuspenseFunds(
  manager: EntityManager,
  moneyKey: string,
): Promise<SuspenseFundsRow | null> {
  const rows: Array<{
    money_key: string;
    funds_id: string;
    status: SuspenseFundsRow['status'];
    holding_account: string;
    amount_centavos: string | null;
    amount_base_units: string | null;
  }> = await manager.query(
    `SELECT money_key, funds_id, status, holding_account, amount_centavos, amount_base_units::text FROM suspense_funds
      WHERE money_key = $1 FOR UPDATE`,
    [moneyKey],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    moneyKey: row.money_key,
    fundsId: row.funds_id,
    status: row.status,
    holdingAccount: row.holding_account,
    amountCentavos: row.amount_centavos === null ? null : Number(row.amount_centavos),
    amountBaseUnits: row.amount_base_units,
  };
}

/** The money left suspense: returned or assigned (to `businessId`), by `journalId` (null when nothing was booked). */
export async function closeSuspenseFunds(
  manager: EntityManager,
  moneyKey: string,
  close: { status: 'returned' | 'assigned'; journalId: number | null; businessId: string | null; at: Date },
): Promise<void> {
  await manager.query(
    `UPDATE suspense_funds SET status = $2, closed_journal_id = $3, closed_business_id = $4, closed_at = $5
      WHERE money_key = $1 AND status = 'held'`,
    [moneyKey, close.status, close.journalId, close.businessId, close.at],
  );
}

/** A dispute as its opening booked it. */
export interface DisputeRow {
  disputeId: string;
  businessId: string;
  paymentId: string;
  status: 'open' | 'won' | 'lost';
  amountCentavos: number;
}

export async function insertDispute(
  manager: EntityManager,
  row: {
    disputeId: string;
    paymentId: string;
    businessId: string;
    amountCentavos: number;
    journalId: number;
    openedAt: Date;
  },
): Promise<void> {
  await manager.query(
    `INSERT INTO disputes (dispute_id, payment_id, business_id, amount_centavos, opened_journal_id, opened_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.disputeId, row.paymentId, row.businessId, row.amountCentavos, row.journalId, row.openedAt],
  );
}

/** The dispute, locked until the transaction ends; null when its opening has not been posted. */
export async function lockDispute(manager: EntityManager, disputeId: string): Promise<DisputeRow | null> {
  const rows: Array<{
    dispute_id: string;
    business_id: string;
    payment_id: string;
    status: DisputeRow['status'];
    amount_centavos: string;
  }> = await manager.query(
    `SELECT dispute_id, business_id, payment_id, status, amount_centavos FROM disputes WHERE dispute_id = $1 FOR UPDATE`,
    [disputeId],
  );
  const row = rows[0];
  return row
    ? {
        disputeId: row.dispute_id,
        businessId: row.business_id,
        paymentId: row.payment_id,
        status: row.status,
        amountCentavos: Number(row.amount_centavos),
      }
    : null;
}

export async function closeDispute(
  manager: EntityManager,
  disputeId: string,
  close: { status: 'won' | 'lost'; journalId: number; at: Date },
): Promise<void> {
  await manager.query(
    `UPDATE disputes SET status = $2, closed_journal_id = $3, closed_at = $4 WHERE dispute_id = $1 AND status = 'open'`,
    [disputeId, close.status, close.journalId, close.at],
  );
}
