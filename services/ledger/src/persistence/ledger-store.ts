import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type {
  BalanceDeltas,
  DueSettlement,
  JournalLine,
  NewBalanceTransaction,
  PaymentTokens,
} from '../domain/posting-rules';
import { BalanceEntity } from './balance.entity';
import { SettlementEntity } from './settlement.entity';

/**
 * Claims a journal's cause key: its id, or null when a journal with this key exists (the event was posted before:
 * a redelivery, a replay, a second sweep). A concurrent claim of the same key waits for the first transaction and,
 * once that commits, finds the key taken.
 */
export async function claimJournal(
  manager: EntityManager,
  journal: { causeKey: string; kind: string; businessId: string | null; railReference?: string | null },
): Promise<number | null> {
  const rows = (await manager.query(
    `INSERT INTO journals (cause_key, kind, business_id, rail_reference) VALUES ($1, $2, $3, $4)
     ON CONFLICT (cause_key) DO NOTHING RETURNING id`,
    [journal.causeKey, journal.kind, journal.businessId, journal.railReference ?? null],
  )) as Array<{ id: string }>;
  return rows.length === 0 ? null : Number(rows[0]!.id);
}

/** A paid payment's posting, as `postPaymentJournal` and `postPaymentJournals` write it. */
export interface PaymentJournal {
  causeKey: string;
  businessId: string;
  railReference: string | null;
  lines: readonly JournalLine[];
  deltas: BalanceDeltas;
  balanceTransaction: NewBalanceTransaction & { id: string };
  settlement: DueSettlement;
}

/**
 * A paid payment's posting, whole, in one statement (one round trip, its own transaction): `postPaymentJournals` with
 * a batch of one. A payment posted before (under this event or another) writes nothing at all. Answers the journal's
 * id, or null when nothing was posted.
 */
export async function postPaymentJournal(
  dataSource: DataSource,
  posting: PaymentJournal,
): Promise<number | null> {
  return (await postPaymentJournals(dataSource, [posting])).get(posting.causeKey) ?? null;
}

/**
 * Paid payments' postings in one statement (one round trip, one transaction, one commit): the payments' posting locks
 * (as `lockPaymentPosting`), taken in payment id order (two batches, or a batch and
 * a refund, never wait on each other in a cycle), their settlements claimed by payment id, then, only for the new
 * ones, their journals claimed by cause key, their entries, their balances (one upsert row per business, in business
 * order, as the settlement sweep locks them) and their balance transactions. The batch has no two postings of one
 * payment or one cause key (the caller posts such a second one after it). Answers the journal id of each posting that
 * was posted, by cause key; one posted before (under its event or another) is absent. Any error refuses the whole
 * batch: nothing of it is written.
 */
export async function postPaymentJournals(
  dataSource: DataSource,
  postings: readonly PaymentJournal[],
): Promise<Map<string, number>> {
  for (const posting of postings)
    if (Object.values(posting.deltas).some((delta) => delta < 0))
      throw new Error(`a payment posting only adds to balances: ${posting.causeKey}`);
  if (new Set(postings.map((p) => p.settlement.paymentId)).size !== postings.length)
    throw new Error('a batch of payment postings has one posting per payment');
  if (new Set(postings.map((p) => p.causeKey)).size !== postings.length)
    throw new Error('a batch of payment postings has one posting per cause key');
  const lines = postings.flatMap((posting, i) => posting.lines.map((line) => ({ posting: i + 1, line })));
  // Prepared once per connection; every argument is an array (one element per posting, or per line), so the one plan
  // serves a batch of any size.
  const { rows } = await (dataSource.driver as PostgresDriver).master.query({
    name: 'ledger-post-payments',
    text: `WITH posting AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[],
         $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::text[],
         $14::text[], $15::bigint[], $16::bigint[], $17::bigint[], $18::text[], $19::timestamptz[],
         $20::timestamptz[], $21::text[])
       WITH ORDINALITY AS p(payment_id, business_id, btx_id, holding_account, net_centavos, available_on, cause_key,
         rail_reference, available_delta, pending_delta, reserved_delta, blocked_delta, btx_type, btx_source_id,
         btx_amount_centavos, btx_fee_centavos, btx_net_centavos, btx_status, btx_available_on, btx_occurred_at,
         btx_description, n)
     ), posting_locks AS (
       SELECT pg_advisory_xact_lock(hashtext('ledger:payment:' || payment_id))
       FROM (SELECT payment_id FROM posting ORDER BY payment_id) AS in_lock_order
     ), settlement AS (
       INSERT INTO settlements (payment_id, business_id, balance_transaction_id, holding_account, net_centavos,
         remaining_centavos, available_on)
       SELECT payment_id, business_id, btx_id, holding_account, net_centavos, net_centavos, available_on
       FROM posting WHERE (SELECT count(*) FROM posting_locks) = (SELECT count(*) FROM posting)
       ORDER BY n
       ON CONFLICT (payment_id) DO NOTHING RETURNING payment_id
     ), journal AS (
       INSERT INTO journals (cause_key, kind, business_id, rail_reference)
       SELECT posting.cause_key, 'payment', posting.business_id, posting.rail_reference
       FROM posting JOIN settlement USING (payment_id)
       ORDER BY posting.n
       ON CONFLICT (cause_key) DO NOTHING RETURNING id, cause_key
     ), posted AS (
       SELECT posting.*, journal.id AS journal_id FROM posting JOIN journal USING (cause_key)
     ), journal_entries AS (
       INSERT INTO entries (journal_id, account, business_id, amount_centavos, quantity_base_units)
       SELECT posted.journal_id, line.account, line.business_id, line.amount_centavos, line.quantity
       FROM unnest($22::bigint[], $23::text[], $24::text[], $25::bigint[], $26::numeric[]) WITH ORDINALITY
         AS line(n, account, business_id, amount_centavos, quantity, line_number)
       JOIN posted USING (n)
       ORDER BY line.line_number
     ), balance AS (
       INSERT INTO balances AS b (business_id, available_centavos, pending_centavos, reserved_centavos,
         blocked_centavos)
       SELECT business_id, sum(available_delta), sum(pending_delta), sum(reserved_delta), sum(blocked_delta)
       FROM posted GROUP BY business_id ORDER BY business_id
       ON CONFLICT (business_id) DO UPDATE SET
         available_centavos = b.available_centavos + EXCLUDED.available_centavos,
         pending_centavos = b.pending_centavos + EXCLUDED.pending_centavos,
         reserved_centavos = b.reserved_centavos + EXCLUDED.reserved_centavos,
         blocked_centavos = b.blocked_centavos + EXCLUDED.blocked_centavos,
         updated_at = now()
     ), balance_transaction AS (
       INSERT INTO balance_transactions (id, business_id, journal_id, type, source_id, amount_centavos,
         fee_centavos, net_centavos, status, available_on, occurred_at, description)
       SELECT btx_id, business_id, journal_id, btx_type, btx_source_id, btx_amount_centavos, btx_fee_centavos,
         btx_net_centavos, btx_status, btx_available_on, btx_occurred_at, btx_description
       FROM posted ORDER BY n
     )
     SELECT cause_key, journal_id FROM posted`,
    values: [
      postings.map((p) => p.settlement.paymentId),
      postings.map((p) => p.businessId),
      postings.map((p) => p.balanceTransaction.id),
      postings.map((p) => p.settlement.holdingAccount),
      postings.map((p) => p.settlement.netCentavos),
      postings.map((p) => p.settlement.availableOn),
      postings.map((p) => p.causeKey),
      postings.map((p) => p.railReference),
      postings.map((p) => p.deltas.available),
      postings.map((p) => p.deltas.pending),
      postings.map((p) => p.deltas.reserved),
      postings.map((p) => p.deltas.blocked),
      postings.map((p) => p.balanceTransaction.type),
      postings.map((p) => p.balanceTransaction.sourceId),
      postings.map((p) => p.balanceTransaction.amountCentavos),
      postings.map((p) => p.balanceTransaction.feeCentavos),
      postings.map((p) => p.balanceTransaction.netCentavos),
      postings.map((p) => p.balanceTransaction.status),
      postings.map((p) => p.balanceTransaction.availableOn),
      postings.map((p) => p.balanceTransaction.occurredAt),
      postings.map((p) => p.balanceTransaction.description),
      lines.map(({ posting }) => posting),
      lines.map(({ line }) => line.account),
      lines.map(({ line }) => line.businessId),
      lines.map(({ line }) => line.amountCentavos),
      lines.map(({ line }) => line.quantityBaseUnits ?? null),
    ],
  });
  return new Map(
    (rows as Array<{ cause_key: string; journal_id: string }>).map((row) => [
      row.cause_key,
      Number(row.journal_id),
    ]),
  );
}

/** Whether a journal with this cause key exists. */
export async function journalExists(manager: EntityManager, causeKey: string): Promise<boolean> {
  const rows = (await manager.query(`SELECT 1 FROM journals WHERE cause_key = $1`, [causeKey])) as unknown[];
  return rows.length > 0;
}

/**
 * Holds, until the transaction ends, the right to post for this payment (its payment or one of its refunds): two
 * events about one payment (a replay under a new id racing the original) are posted one after the other, so the
 * second sees the first.
 */
export async function lockPaymentPosting(manager: EntityManager, paymentId: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext('ledger:payment:' || $1))`, [paymentId]);
}

/** Whether the source (a payment, a refund) already has its balance transaction. */
export async function balanceTransactionExists(
  manager: EntityManager,
  type: string,
  sourceId: string,
): Promise<boolean> {
  const rows = (await manager.query(`SELECT 1 FROM balance_transactions WHERE type = $1 AND source_id = $2`, [
    type,
    sourceId,
  ])) as unknown[];
  return rows.length > 0;
}

/** The journal's entries (the database checks at commit that they sum to zero). */
export async function insertEntries(
  manager: EntityManager,
  journalId: number,
  lines: readonly JournalLine[],
): Promise<void> {
  if (lines.length === 0) return;
  const values = lines
    .map((_, i) => `($1, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4}, $${4 * i + 5}::numeric)`)
    .join(', ');
  await manager.query(
    `INSERT INTO entries (journal_id, account, business_id, amount_centavos, quantity_base_units) VALUES ${values}`,
    [
      journalId,
      ...lines.flatMap((line) => [
        line.account,
        line.businessId,
        line.amountCentavos,
        line.quantityBaseUnits ?? null,
      ]),
    ],
  );
}

/**
 * Adds the deltas to the business's balances (its row made at its first journal); the CHECKs refuse a negative.
 * Two statements: an `INSERT ... ON CONFLICT DO UPDATE` would check the row it proposes (the deltas alone) first.
 */
export async function applyBalanceDeltas(
  manager: EntityManager,
  businessId: string,
  deltas: BalanceDeltas,
): Promise<void> {
  await manager.query(`INSERT INTO balances (business_id) VALUES ($1) ON CONFLICT (business_id) DO NOTHING`, [
    businessId,
  ]);
  await manager.query(
    `UPDATE balances SET
       available_centavos = available_centavos + $2,
       pending_centavos = pending_centavos + $3,
       reserved_centavos = reserved_centavos + $4,
       blocked_centavos = blocked_centavos + $5,
       updated_at = now()
     WHERE business_id = $1`,
    [businessId, deltas.available, deltas.pending, deltas.reserved, deltas.blocked],
  );
}

/** The business's balances, locked until the transaction ends (zeros, and a row, for a business with none yet). */
export async function lockBalance(manager: EntityManager, businessId: string): Promise<BalanceEntity> {
  await manager.query(`INSERT INTO balances (business_id) VALUES ($1) ON CONFLICT (business_id) DO NOTHING`, [
    businessId,
  ]);
  return manager
    .createQueryBuilder(BalanceEntity, 'balance')
    .setLock('pessimistic_write')
    .where('balance.business_id = :businessId', { businessId })
    .getOneOrFail();
}

export function findBalance(manager: EntityManager, businessId: string): Promise<BalanceEntity | null> {
  return manager.findOne(BalanceEntity, { where: { businessId } });
}

/** Writes a balance transaction; the database dates it (`created_at`) as it writes it. */
export async function insertBalanceTransaction(
  manager: EntityManager,
  row: NewBalanceTransaction & { id: string; businessId: string; journalId: number },
): Promise<void> {
  await manager.query(
    `INSERT INTO balance_transactions (id, business_id, journal_id, type, source_id, amount_centavos, fee_centavos,
       net_centavos, status, available_on, occurred_at, description)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      row.id,
      row.businessId,
      row.journalId,
      row.type,
      row.sourceId,
      row.amountCentavos,
      row.feeCentavos,
      row.netCentavos,
      row.status,
      row.availableOn,
      row.occurredAt,
      row.description,
    ],
  );
}

/** A settlement of a posting written one at a time (money credited out of suspense): its net pending until due. */
export async function insertSettlement(
  manager: EntityManager,
  settlement: DueSettlement,
  balanceTransactionId: string,
): Promise<void> {
  await manager.query(
    `INSERT INTO settlements (payment_id, business_id, balance_transaction_id, holding_account, net_centavos,
       remaining_centavos, available_on)
     VALUES ($1, $2, $3, $4, $5, $5, $6)`,
    [
      settlement.paymentId,
      settlement.businessId,
      balanceTransactionId,
      settlement.holdingAccount,
      settlement.netCentavos,
      settlement.availableOn,
    ],
  );
}

/**
 * The payment's settlement, locked until the transaction ends (a refund takes from its remainder); null for a payment
 * the ledger has not posted.
 */
export function lockSettlement(manager: EntityManager, paymentId: string): Promise<SettlementEntity | null> {
  return manager
    .createQueryBuilder(SettlementEntity, 'settlement')
    .setLock('pessimistic_write')
    .where('settlement.payment_id = :paymentId', { paymentId })
    .getOne();
}

/** A refund took `centavos` from what the settlement had left to move. */
export async function takeFromSettlement(
  manager: EntityManager,
  paymentId: string,
  centavos: number,
): Promise<void> {
  if (centavos === 0) return;
  await manager.query(
    `UPDATE settlements SET remaining_centavos = remaining_centavos - $2 WHERE payment_id = $1`,
    [paymentId, centavos],
  );
}

/**
 * Up to `limit` settlements due at `now`, oldest due first, locked for this transaction; one another sweep holds is
 * skipped, so two sweeps running at once share the work instead of waiting on each other.
 */
export function claimDueSettlements(
  manager: EntityManager,
  now: Date,
  limit: number,
): Promise<SettlementEntity[]> {
  return manager
    .createQueryBuilder(SettlementEntity, 'settlement')
    .where('settlement.settled_at IS NULL')
    .andWhere('settlement.available_on <= :now', { now })
    .orderBy('settlement.available_on', 'ASC')
    .limit(limit)
    .setLock('pessimistic_write')
    .setOnLocked('skip_locked')
    .getMany();
}

/** The settlement is done: its balance transaction's money is available. */
export async function markSettled(manager: EntityManager, settlement: SettlementEntity): Promise<void> {
  await manager.query(
    `UPDATE settlements SET settled_at = now(), remaining_centavos = 0 WHERE payment_id = $1`,
    [settlement.paymentId],
  );
  await manager.query(`UPDATE balance_transactions SET status = 'available' WHERE id = $1`, [
    settlement.balanceTransactionId,
  ]);
}

/**
 * What a crypto payment's journal put in its token account (its gross and quantity), found from its balance
 * transaction; null when the payment is not posted in tokens or its quantity was not known.
 */
export async function paymentTokens(
  manager: EntityManager,
  balanceTransactionId: string,
): Promise<PaymentTokens | null> {
  const [row] = (await manager.query(
    `SELECT e.amount_centavos, e.quantity_base_units::text AS quantity
       FROM balance_transactions b JOIN entries e ON e.journal_id = b.journal_id
      WHERE b.id = $1 AND e.account LIKE 'tokens:%' AND e.quantity_base_units IS NOT NULL`,
    [balanceTransactionId],
  )) as Array<{ amount_centavos: string; quantity: string }>;
  return row === undefined
    ? null
    : { grossCentavos: Number(row.amount_centavos), quantityBaseUnits: row.quantity };
}
