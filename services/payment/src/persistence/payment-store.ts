import { In, type EntityManager } from 'typeorm';
import {
  MANUAL_RETURN,
  type AmountParts,
  type FeeRule,
  type PaymentMethod,
  type PaymentPayer,
  type ReceivedFundsStatus,
} from '@gateway/contracts';
import { newestCreatedPage, newestFirstPage, type Page, type PageRequest } from '@gateway/persistence';
import type { ReceivedFunds } from '../domain/funds';
import { payerColumns } from '../domain/payment-record';
import { OPEN_STATUSES, type FinalStatus } from '../domain/payment-status';
import { FeeRuleEntity } from './fee-rule.entity';
import { PaymentEntity } from './payment.entity';
import { ReceivedFundsEntity, type ReceivedFundsKind } from './received-funds.entity';
import { sameMoneyReturnedElsewhere } from './received-funds-store';

export function findPayment(
  manager: EntityManager,
  paymentId: string,
  businessId?: string,
): Promise<PaymentEntity | null> {
  return manager.findOneBy(PaymentEntity, businessId ? { id: paymentId, businessId } : { id: paymentId });
}

export function findFeeRule(
  manager: EntityManager,
  businessId: string,
  method: PaymentMethod,
): Promise<FeeRuleEntity | null> {
  return manager.findOneBy(FeeRuleEntity, { businessId, method });
}

/** Creates or replaces the fee rule of one (business, method). */
export async function upsertFeeRule(manager: EntityManager, rule: FeeRule): Promise<void> {
  await manager.query(
    `INSERT INTO fee_rules (business_id, method, percent_bps, fixed_centavos) VALUES ($1, $2, $3, $4)
     ON CONFLICT (business_id, method)
     DO UPDATE SET percent_bps = EXCLUDED.percent_bps, fixed_centavos = EXCLUDED.fixed_centavos,
                   updated_at = now()`,
    [rule.business_id, rule.method, rule.percent_bps, rule.fixed_centavos],
  );
}

/** Gives the business `rule` unless it has a rule for that method already (which stays as it is). */
export async function adoptFeeRule(manager: EntityManager, rule: FeeRule): Promise<void> {
  await manager.query(
    `INSERT INTO fee_rules (business_id, method, percent_bps, fixed_centavos) VALUES ($1, $2, $3, $4)
     ON CONFLICT (business_id, method) DO NOTHING`,
    [rule.business_id, rule.method, rule.percent_bps, rule.fixed_centavos],
  );
}

/** Inserts a new payment, never over one: null (and nothing written) when a payment with its id exists already. */
export async function insertPayment(
  manager: EntityManager,
  payment: PaymentEntity,
): Promise<PaymentEntity | null> {
  const entity = manager.create(PaymentEntity, payment);
  const inserted = await manager
    .createQueryBuilder()
    .insert()
    .into(PaymentEntity)
    .values(entity)
    .orIgnore()
    .returning('id')
    .execute();
  return inserted.raw.length === 0 ? null : entity;
}

/**
 * Writes the changes of an open payment (amount, fee, instructions, metadata, version), only if it is still open and
 * still at `readAtVersion`; false (and nothing written) otherwise.
 */
export async function saveOpenPaymentChange(
  manager: EntityManager,
  payment: PaymentEntity,
  readAtVersion: number,
): Promise<boolean> {
  const result = await manager.update(
    PaymentEntity,
    { id: payment.id, status: In([...OPEN_STATUSES]), version: readAtVersion },
    {
      amountCentavos: payment.amountCentavos,
      feeCentavos: payment.feeCentavos,
      externalId: payment.externalId,
      instructions: payment.instructions,
      metadata: payment.metadata,
      updatedAt: payment.updatedAt,
      version: payment.version,
    },
  );
  return result.affected === 1;
}

export interface FinalTransition {
  status: FinalStatus;
  transactionId?: string;
  failureCode?: string | null;
  failureReason?: string | null;
  /** Who paid, as the rail reported it (a move to `paid` only). */
  payer?: PaymentPayer | null;
  /** A due-date payment's move to `paid`: what was paid, its parts, and the fee on it. */
  paid?: { parts: AmountParts; amountCentavos: number; feeCentavos: number };
}

/**
 * Moves an open payment to a final status with a conditional UPDATE; returns the payment as it is now. Null (and
 * nothing written) when the payment was no longer open: a concurrent transition won.
 */
export async function moveToFinalStatus(
  manager: EntityManager,
  paymentId: string,
  change: FinalTransition,
): Promise<PaymentEntity | null> {
  const payer = payerColumns(change.status === 'paid' ? change.payer : null);
  const paid = change.status === 'paid' ? change.paid : undefined;
  const updated: [Array<{ id: string }>, number] = await manager.query(
    `UPDATE payments
        SET status = $2,
            transaction_id = COALESCE($3, transaction_id),
            failure_code = $4,
            failure_reason = $5,
            paid_at = CASE WHEN $2 = 'paid' THEN now() END,
            payer_name = $7,
            payer_document_masked = $8,
            payer_address = $9,
            fee_centavos = COALESCE($10, fee_centavos),
            amount_paid_centavos = $11,
            paid_original_centavos = $12,
            paid_fine_centavos = $13,
            paid_interest_centavos = $14,
            paid_reduction_centavos = $15,
            paid_discount_centavos = $16,
            updated_at = now(),
            version = version + 1
      WHERE id = $1 AND status = ANY($6::text[])
      RETURNING id`,
    [
      paymentId,
      change.status,
      change.transactionId ?? null,
      change.failureCode ?? null,
      change.failureReason ?? null,
      OPEN_STATUSES,
      payer.payerName,
      payer.payerDocumentMasked,
      payer.payerAddress,
      paid?.feeCentavos ?? null,
      paid?.amountCentavos ?? null,
      paid?.parts.original ?? null,
      paid?.parts.fine ?? null,
      paid?.parts.interest ?? null,
      paid?.parts.reduction ?? null,
      paid?.parts.discount ?? null,
    ],
  );
  if (updated[1] === 0) return null;
  return manager.findOneByOrFail(PaymentEntity, { id: paymentId });
}

/** A received-funds record as recording it left it (the money's identity and what it is now). */
export interface RecordedFunds {
  fundsId: string;
  kind: ReceivedFundsKind;
  recordedAt: Date;
}

/**
 * Records funds outside the happy path once per (payment, rail reference, instruction); null if already recorded. An
 * `unreadable` record (a transaction not read yet, no instruction) is replaced by what the whole transaction turns out
 * to be when that is reported under the same key (a settlement's excess, late funds): the record is answered again,
 * with its new kind.
 */
export async function recordReceivedFunds(
  manager: EntityManager,
  funds: ReceivedFunds,
): Promise<RecordedFunds | null> {
  const rows: Array<{ funds_id: string; kind: ReceivedFundsKind; recorded_at: Date }> = await manager.query(
    `INSERT INTO received_funds
       (payment_id, kind, rail, rail_reference, instruction, amount_centavos, amount_base_units, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, now()))
     ON CONFLICT (payment_id, rail_reference, instruction) DO UPDATE
       SET kind = EXCLUDED.kind, amount_base_units = EXCLUDED.amount_base_units
       WHERE received_funds.kind = 'unreadable' AND EXCLUDED.kind <> 'unreadable'
     RETURNING funds_id, kind, recorded_at`,
    [
      funds.paymentId,
      funds.kind,
      funds.rail,
      funds.railReference,
      funds.instruction ?? '',
      funds.amountCentavos,
      funds.amountBaseUnits,
      funds.detectedAt ?? null,
    ],
  );
  const row = rows[0];
  return row ? { fundsId: row.funds_id, kind: row.kind, recordedAt: row.recorded_at } : null;
}

/**
 * Drops the `unreadable` record of a transaction once it has been read: what its money turned out to be is recorded
 * on its own (the payment, partial or late funds), or it held none of the payment's money.
 */
export async function forgetUnreadableFunds(
  manager: EntityManager,
  paymentId: string,
  railReference: string,
): Promise<void> {
  await manager.query(
    `DELETE FROM received_funds WHERE payment_id = $1 AND rail_reference = $2 AND kind = 'unreadable'`,
    [paymentId, railReference],
  );
}

/** What a list of payments is narrowed to (docs/api.md#lists-and-pagination). */
export interface PaymentFilters {
  status?: PaymentEntity['status'];
  method?: PaymentEntity['method'];
  createdGte?: Date;
  createdLt?: Date;
  subscriptionId?: string;
}

/**
 * A page of a business's payments, newest first (creation time, then id), after the payment `startingAfter`;
 * undefined when that payment is not one of this business's (it may be one the filters leave out: a position).
 */
export function listPaymentsOf(
  manager: EntityManager,
  businessId: string,
  filters: PaymentFilters,
  page: PageRequest,
): Promise<Page<PaymentEntity> | undefined> {
  const { status, method, createdGte, createdLt, subscriptionId } = filters;
  return newestCreatedPage(manager, PaymentEntity, { business_id: businessId }, page, (payments) => {
    if (status) payments.andWhere('listed.status = :status', { status });
    if (method) payments.andWhere('listed.method = :method', { method });
    if (createdGte) payments.andWhere('listed.created_at >= :gte', { gte: createdGte });
    if (createdLt) payments.andWhere('listed.created_at < :lt', { lt: createdLt });
    if (subscriptionId) payments.andWhere('listed.subscription_id = :subscriptionId', { subscriptionId });
  });
}

/**
 * A page of a payment's funds records, newest first (time, then insertion order), after the record `startingAfter`;
 * undefined when that record is not one of this payment's.
 */
export function listReceivedFundsOf(
  manager: EntityManager,
  paymentId: string,
  page: PageRequest,
): Promise<Page<ReceivedFundsEntity> | undefined> {
  const funds = manager
    .createQueryBuilder(ReceivedFundsEntity, 'funds')
    .where('funds.payment_id = :paymentId', { paymentId });
  return newestFirstPage(funds, { time: 'recorded_at', tiebreak: 'id', publicId: 'funds_id' }, page);
}

/**
 * The SQL condition of each received-funds status (domain/funds `receivedFundsStatus`) on the alias `funds`: its own
 * return, or, while it has none, that of another payment's record of the same instruction's money.
 */
const returnedAs = (alias: string, status: ReceivedFundsStatus): string =>
  status === 'returned'
    ? `(${alias}.returned_by = '${MANUAL_RETURN}' OR ${alias}.returned_at IS NOT NULL)`
    : `(${alias}.returned_by IS NOT NULL AND ${alias}.returned_by <> '${MANUAL_RETURN}' AND ${alias}.returned_at IS NULL)`;
const RETURNED_ELSEWHERE = (condition: string) =>
  `(funds.returned_by IS NULL AND funds.assigned_at IS NULL AND ${sameMoneyReturnedElsewhere('funds', condition)})`;
const STATUS_CONDITION: Record<ReceivedFundsStatus, string> = {
  held: `funds.returned_by IS NULL AND funds.assigned_at IS NULL AND NOT ${sameMoneyReturnedElsewhere('funds')}`,
  assigned: `(funds.assigned_at IS NOT NULL OR (funds.returned_by IS NULL AND ${sameMoneyReturnedElsewhere(
    'funds',
    'same.assigned_at IS NOT NULL',
  )}))`,
  returning: `(${returnedAs('funds', 'returning')} OR ${RETURNED_ELSEWHERE(returnedAs('same', 'returning'))})`,
  returned: `(${returnedAs('funds', 'returned')} OR ${RETURNED_ELSEWHERE(returnedAs('same', 'returned'))})`,
};

/**
 * A page of every payment's funds records (the operator's list), newest first, of one kind and status when given,
 * after the record `startingAfter` (any record: a position); undefined when no record has that id.
 */
export function listAllReceivedFunds(
  manager: EntityManager,
  filters: { kind?: ReceivedFundsKind; status?: ReceivedFundsStatus },
  page: PageRequest,
): Promise<Page<ReceivedFundsEntity> | undefined> {
  const every = manager.createQueryBuilder(ReceivedFundsEntity, 'funds');
  const list = every.clone();
  if (filters.kind) list.andWhere('funds.kind = :kind', { kind: filters.kind });
  if (filters.status) list.andWhere(STATUS_CONDITION[filters.status]);
  return newestFirstPage(list, { time: 'recorded_at', tiebreak: 'id', publicId: 'funds_id' }, page, every);
}

export async function hasReceivedFunds(
  manager: EntityManager,
  paymentId: string,
  kind: ReceivedFundsKind,
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM received_funds WHERE payment_id = $1 AND kind = $2 LIMIT 1`,
    [paymentId, kind],
  );
  return rows.length > 0;
}

/** Whether this rail transfer is already on record for the payment (as partial, excess, late or unmatched). */
export async function isTransferRecorded(
  manager: EntityManager,
  paymentId: string,
  railReference: string,
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM received_funds WHERE payment_id = $1 AND rail_reference = $2`,
    [paymentId, railReference],
  );
  return rows.length > 0;
}

/**
 * The payment (of `businessId`, when given), locked until the transaction ends: every settlement decision about it is
 * taken under this lock.
 */
export function lockPayment(
  manager: EntityManager,
  paymentId: string,
  businessId?: string,
): Promise<PaymentEntity | null> {
  return manager.findOne(PaymentEntity, {
    where: businessId ? { id: paymentId, businessId } : { id: paymentId },
    lock: { mode: 'pessimistic_write' },
  });
}

/**
 * Claims an open payment's amount change for the command `messageId` for `claimMs` (its rail call is made outside
 * any transaction; the claim keeps a second change from calling the rail meanwhile). The same message may claim
 * again (a redelivery). False when the payment is not open for this business or another change holds it.
 */
export async function claimAmountChange(
  manager: EntityManager,
  payment: { id: string; businessId: string },
  messageId: string,
  claimMs: number,
): Promise<boolean> {
  const [, claimed]: [unknown[], number] = await manager.query(
    `UPDATE payments
        SET update_message_id = $3, update_claimed_until = now() + $4 * interval '1 millisecond'
      WHERE id = $1 AND business_id = $2 AND status = ANY($5::text[])
        AND (update_claimed_until IS NULL OR update_claimed_until < now() OR update_message_id = $3)`,
    [payment.id, payment.businessId, messageId, claimMs, OPEN_STATUSES],
  );
  return claimed === 1;
}

/** Whether `messageId` still holds the amount change of the (locked) payment. */
export async function holdsAmountChange(
  manager: EntityManager,
  paymentId: string,
  messageId: string,
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM payments WHERE id = $1 AND update_message_id = $2 AND update_claimed_until >= now()`,
    [paymentId, messageId],
  );
  return rows.length > 0;
}

/**
 * Ends the claim of `messageId`: `committed` keeps its message id (a redelivery then knows the change is made),
 * otherwise (the rail refused it) the claim is gone.
 */
export async function releaseAmountChange(
  manager: EntityManager,
  paymentId: string,
  messageId: string,
  { committed }: { committed: boolean },
): Promise<void> {
  await manager.query(
    `UPDATE payments
        SET update_claimed_until = NULL, update_message_id = CASE WHEN $3 THEN update_message_id END
      WHERE id = $1 AND update_message_id = $2`,
    [paymentId, messageId, committed],
  );
}

/** Whether `messageId`'s amount change of the payment was committed (its claim ended with the payment updated). */
export async function amountChangeCommitted(
  manager: EntityManager,
  paymentId: string,
  messageId: string,
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM payments WHERE id = $1 AND update_message_id = $2 AND update_claimed_until IS NULL`,
    [paymentId, messageId],
  );
  return rows.length > 0;
}

/**
 * Claims up to `limit` open payments due for a reconciliation check (older than `afterSeconds`, and not checked in
 * the last `afterSeconds`) until `afterSeconds` from now; rows another pass holds are skipped.
 */
export async function claimPaymentsToReconcile(
  manager: EntityManager,
  afterSeconds: number,
  limit: number,
): Promise<Array<Pick<PaymentEntity, 'id' | 'method'>>> {
  // An UPDATE answers [rows, count].
  const [claimed]: [Array<Pick<PaymentEntity, 'id' | 'method'>>, number] = await manager.query(
    `UPDATE payments SET reconcile_after = now() + $1 * interval '1 second'
      WHERE id IN (SELECT id FROM payments
                    WHERE status = ANY($2::text[]) AND created_at <= now() - $1 * interval '1 second'
                      AND (reconcile_after IS NULL OR reconcile_after <= now())
                    ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING id, method`,
    [afterSeconds, OPEN_STATUSES, limit],
  );
  return claimed;
}

/**
 * Open payments past the end of their payment window, by method: how many, and how long past it the oldest is
 * (methods with none are absent).
 */
export function countStuckPayments(
  manager: EntityManager,
): Promise<Array<{ method: string; stuck: string; oldest_seconds: number | null }>> {
  return manager.query(
    `SELECT method, count(*) AS stuck,
            EXTRACT(EPOCH FROM now() - min(COALESCE((instructions->>'expires_at')::timestamptz, created_at)))::float8
              AS oldest_seconds
       FROM payments
      WHERE status = ANY($1::text[])
        AND COALESCE((instructions->>'expires_at')::timestamptz, created_at) < now()
      GROUP BY method`,
    [OPEN_STATUSES],
  );
}

/** A page of the payment change feed (docs/adr/0043-payment-lists-from-the-change-feed.md). */
export interface PaymentChanges {
  payments: PaymentEntity[];
  /** The transaction id and payment id of the last payment of the page; null when the page is empty. */
  last: { xid: string; paymentId: string } | null;
  /** Every transaction with a lower id had ended before the page was read. */
  settledBelow: string;
  hasMore: boolean;
}

/**
 * Every payment whose last write comes after (`xid`, `paymentId`) in write-transaction order, as it stands now, at
 * most `limit`. The settling point is read first, so it never runs ahead of what the page shows: a transaction below
 * it had ended then, and whatever it wrote is visible to the read that follows (or was overwritten by a later
 * transaction, which sorts after it).
 */
export async function readPaymentChanges(
  manager: EntityManager,
  after: { xid: string; paymentId: string },
  limit: number,
): Promise<PaymentChanges> {
  const settled: Array<{ settled_below: string }> = await manager.query(
    `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS settled_below`,
  );
  const settledBelow = settled[0]!.settled_below;
  const { entities, raw } = await manager
    .createQueryBuilder(PaymentEntity, 'changed')
    .addSelect('changed.changed_xid::text', 'changed_xid_text')
    .where('(changed.changed_xid, changed.id) > (CAST(:xid AS xid8), :paymentId)', after)
    .orderBy('changed.changed_xid', 'ASC')
    .addOrderBy('changed.id', 'ASC')
    .limit(limit + 1)
    .getRawAndEntities<{ changed_xid_text: string }>();
  const payments = entities.slice(0, limit);
  const lastRaw = raw[payments.length - 1];
  return {
    payments,
    last: lastRaw ? { xid: lastRaw.changed_xid_text, paymentId: payments.at(-1)!.id } : null,
    settledBelow,
    hasMore: entities.length > limit,
  };
}
