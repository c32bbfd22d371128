import type { EntityManager } from 'typeorm';
import { MANUAL_RETURN, OPERATOR_RETURN, type ArrivalQuote, type RefundedExcess } from '@gateway/contracts';
import type { ReturnElsewhere } from '../domain/funds';
import { ReceivedFundsEntity } from './received-funds.entity';

// How kept money goes back to the payer, once (migration 1732400273000 refuses any second return).

/**
 * SQL: another record (`same`) of the same money as the record `alias` — one transfer instruction naming several
 * payments is kept by each — has been returned (or is being returned) or assigned, and `condition` on `same` holds.
 */
export const sameMoneyReturnedElsewhere = (alias: string, condition = 'true'): string =>
  sameMoneyElsewhere(
    alias,
    `(same.returned_by IS NOT NULL OR same.assigned_at IS NOT NULL) AND ${condition}`,
  );

/** Another record (`same`) of the money `alias` is, kept by another payment the same instruction named. */
const sameMoneyNamedElsewhere = (alias: string): string =>
  sameMoneyElsewhere(alias, `same.payment_id <> ${alias}.payment_id`);

function sameMoneyElsewhere(alias: string, condition: string): string {
  return `EXISTS (SELECT 1 FROM received_funds same
     WHERE same.rail = ${alias}.rail AND same.rail_reference = ${alias}.rail_reference
       AND same.instruction = ${alias}.instruction AND same.instruction <> '' AND same.id <> ${alias}.id
       AND ${condition})`;
}

/** Whether the money of these funds was named by several payments (one instruction naming their references). */
export async function isMoneyOfSeveralPayments(manager: EntityManager, fundsId: string): Promise<boolean> {
  const [row] = (await manager.query(
    `SELECT ${sameMoneyNamedElsewhere('received_funds')} AS several FROM received_funds WHERE funds_id = $1`,
    [fundsId],
  )) as Array<{ several: boolean }>;
  return row?.several === true;
}

/** The payment's overpayment excess still held, locked until the transaction ends; null when there is none. */
export async function lockHeldExcess(
  manager: EntityManager,
  paymentId: string,
): Promise<RefundedExcess | null> {
  const rows: Array<{ funds_id: string; amount_centavos: string | null; amount_base_units: string | null }> =
    await manager.query(
      `SELECT funds_id, amount_centavos, amount_base_units FROM received_funds
        WHERE payment_id = $1 AND kind = 'excess' AND returned_by IS NULL AND assigned_at IS NULL
        ORDER BY id LIMIT 1 FOR UPDATE`,
      [paymentId],
    );
  const row = rows[0];
  if (!row) return null;
  return {
    funds_id: row.funds_id,
    amount_centavos: row.amount_centavos === null ? null : Number(row.amount_centavos),
    amount_base_units: row.amount_base_units,
  };
}

/** Marks held funds as carried by `refundId` (a pending refund that names them); false when they are not held. */
export async function markFundsReturnedByRefund(
  manager: EntityManager,
  fundsId: string,
  refundId: string,
): Promise<boolean> {
  const [rows]: [unknown[], number] = await manager.query(
    `UPDATE received_funds SET returned_by = $2
      WHERE funds_id = $1 AND returned_by IS NULL AND assigned_at IS NULL RETURNING id`,
    [fundsId, refundId],
  );
  return rows.length > 0;
}

/**
 * Marks held funds of the payment as returned by hand now; null when they are not held (or not the payment's), when
 * their amount is not known yet (`unreadable`) or their value in BRL is not (tokens that arrived with no quote: the
 * business would be credited nothing, and the money would leave the operator's reach), or when the same money was
 * named by several payments (one transfer instruction naming their references: it is no one's until the operator
 * assigns or returns it, so no business takes it by its own word). Returns of one instruction's money queue on a
 * lock of their own, whichever payments they go through; the database refuses a second one regardless.
 */
export async function markFundsReturnedByHand(
  manager: EntityManager,
  paymentId: string,
  fundsId: string,
): Promise<ReceivedFundsEntity | null> {
  const [funds] = (await manager.query(
    `SELECT rail_reference, instruction FROM received_funds WHERE funds_id = $1 AND payment_id = $2`,
    [fundsId, paymentId],
  )) as Array<{ rail_reference: string; instruction: string }>;
  if (!funds) return null;
  await lockInstructionMoney(manager, {
    railReference: funds.rail_reference,
    instruction: funds.instruction,
  });
  const [rows]: [unknown[], number] = await manager.query(
    `UPDATE received_funds SET returned_by = $3, returned_at = now()
      WHERE funds_id = $1 AND payment_id = $2 AND returned_by IS NULL AND assigned_at IS NULL
        AND kind <> 'unreadable' AND valued_centavos IS NOT NULL
        AND NOT ${sameMoneyNamedElsewhere('received_funds')} AND NOT ${sameMoneyReturnedElsewhere('received_funds')}
      RETURNING id`,
    [fundsId, paymentId, MANUAL_RETURN],
  );
  return rows.length > 0 ? findReceivedFunds(manager, paymentId, fundsId) : null;
}

/** One record of the payment's received funds. */
export function findReceivedFunds(
  manager: EntityManager,
  paymentId: string,
  fundsId: string,
): Promise<ReceivedFundsEntity | null> {
  return manager.findOneBy(ReceivedFundsEntity, { paymentId, fundsId });
}

/** What a settled refund does to the funds it carries: dated returned when it succeeded, held again when it failed. */
export async function settleFundsOfRefund(
  manager: EntityManager,
  refund: { id: string; returnedFundsId: string | null },
  outcome: 'succeeded' | 'failed',
): Promise<void> {
  if (refund.returnedFundsId === null) return;
  await manager.query(
    outcome === 'succeeded'
      ? `UPDATE received_funds SET returned_at = now() WHERE funds_id = $2 AND returned_by = $1 AND returned_at IS NULL`
      : `UPDATE received_funds SET returned_by = NULL WHERE funds_id = $2 AND returned_by = $1`,
    [refund.id, refund.returnedFundsId],
  );
}

/**
 * For records still held whose money (one transfer instruction naming several payments, kept by each) went back, or was
 * assigned, through another payment's record: that return or assignment, by the held record's `funds_id`.
 */
export async function returnsElsewhere(
  manager: EntityManager,
  fundsIds: readonly string[],
): Promise<Map<string, ReturnElsewhere>> {
  if (fundsIds.length === 0) return new Map();
  const rows: Array<{
    funds_id: string;
    returned_by: string | null;
    returned_at: Date | null;
    assigned_payment_id: string | null;
    assigned_at: Date | null;
    return_reference: string | null;
  }> = await manager.query(
    `SELECT mine.funds_id, same.returned_by, same.returned_at, same.assigned_payment_id, same.assigned_at,
            same.return_reference
       FROM received_funds mine
       JOIN received_funds same
         ON same.rail = mine.rail AND same.rail_reference = mine.rail_reference
        AND same.instruction = mine.instruction AND same.id <> mine.id
        AND (same.returned_by IS NOT NULL OR same.assigned_at IS NOT NULL)
      WHERE mine.funds_id = ANY($1) AND mine.instruction <> '' AND mine.returned_by IS NULL
        AND mine.assigned_at IS NULL`,
    [fundsIds],
  );
  return new Map(
    rows.map((row) => [
      row.funds_id,
      {
        returnedBy: row.returned_by,
        returnedAt: row.returned_at,
        assignedPaymentId: row.assigned_payment_id,
        assignedAt: row.assigned_at,
        returnReference: row.return_reference,
      },
    ]),
  );
}

/** Takes the per-instruction lock every return or assignment of one instruction's money queues on (none for others). */
async function lockInstructionMoney(
  manager: EntityManager,
  funds: { railReference: string; instruction: string },
): Promise<void> {
  if (funds.instruction !== '')
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `received-funds:${funds.railReference}:${funds.instruction}`,
    ]);
}

/**
 * Marks held funds as being returned by the operator through the rail, as the attempt `returnId` that follows
 * `attempts` earlier ones; null when they are not held (returned or being returned, assigned), of unknown amount
 * (`unreadable`), or the same money was returned or assigned through another record. Like an assignment, under the
 * per-instruction lock; the database refuses a second taking regardless.
 */
export async function markFundsReturningByOperator(
  manager: EntityManager,
  funds: Pick<ReceivedFundsEntity, 'fundsId' | 'railReference' | 'instruction' | 'returnAttempts'>,
  returnId: string,
  reason: string | null,
): Promise<ReceivedFundsEntity | null> {
  await lockInstructionMoney(manager, funds);
  const [rows]: [unknown[], number] = await manager.query(
    `UPDATE received_funds
        SET returned_by = $2, return_id = $3, return_attempts = return_attempts + 1, return_failure_reason = NULL,
            return_asked_at = now(), return_reason = $5
      WHERE funds_id = $1 AND return_attempts = $4 AND returned_by IS NULL AND assigned_at IS NULL
        AND kind <> 'unreadable' AND NOT ${sameMoneyReturnedElsewhere('received_funds')}
      RETURNING id`,
    [funds.fundsId, OPERATOR_RETURN, returnId, funds.returnAttempts, reason],
  );
  return rows.length > 0 ? manager.findOneByOrFail(ReceivedFundsEntity, { fundsId: funds.fundsId }) : null;
}

/**
 * Up to `limit` operator returns still in flight `afterSeconds` after their rail was last asked, each marked asked now
 * (replicas skip the ones another is taking): the returns to ask of their rail again.
 */
export async function claimStaleOperatorReturns(
  manager: EntityManager,
  afterSeconds: number,
  limit: number,
): Promise<ReceivedFundsEntity[]> {
  const [rows]: [Array<{ funds_id: string }>, number] = await manager.query(
    `WITH stale AS (
       SELECT id FROM received_funds
        WHERE returned_by = $3 AND returned_at IS NULL AND return_id IS NOT NULL
          AND coalesce(return_asked_at, '-infinity') < now() - make_interval(secs => $1)
        ORDER BY return_asked_at NULLS FIRST LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE received_funds SET return_asked_at = now() FROM stale
      WHERE received_funds.id = stale.id RETURNING received_funds.funds_id`,
    [afterSeconds, limit, OPERATOR_RETURN],
  );
  if (rows.length === 0) return [];
  return manager.find(ReceivedFundsEntity, { where: rows.map((row) => ({ fundsId: row.funds_id })) });
}

/**
 * What the rail's outcome does to funds the operator's return `returnId` carries: returned now with the rail's id of
 * the return when it succeeded, held again with the rail's reason when it failed. Null when no such return is in
 * flight (settled already: a redelivery).
 */
export async function settleFundsOfOperatorReturn(
  manager: EntityManager,
  returnId: string,
  outcome: { succeeded: true; reference: string } | { succeeded: false; reason: string },
): Promise<ReceivedFundsEntity | null> {
  const [rows]: [Array<{ funds_id: string }>, number] = await manager.query(
    outcome.succeeded
      ? `UPDATE received_funds SET returned_at = now(), return_reference = $3
          WHERE return_id = $1 AND returned_by = $2 AND returned_at IS NULL RETURNING funds_id`
      : `UPDATE received_funds SET returned_by = NULL, return_failure_reason = $3
          WHERE return_id = $1 AND returned_by = $2 AND returned_at IS NULL RETURNING funds_id`,
    [returnId, OPERATOR_RETURN, outcome.succeeded ? outcome.reference : outcome.reason],
  );
  const [row] = rows;
  return row ? manager.findOneByOrFail(ReceivedFundsEntity, { fundsId: row.funds_id }) : null;
}

/**
 * Marks held funds as assigned by the operator to `paymentId` (a payment the caller has locked) now; null when they
 * are not held: returned or being returned, assigned already, of unknown amount (`unreadable`), or the same money (one
 * transfer instruction naming several payments, kept by each) returned or assigned through another record already.
 * Under the same per-instruction lock as a return by hand; the database refuses a second one regardless.
 */
export async function markFundsAssigned(
  manager: EntityManager,
  fundsId: string,
  paymentId: string,
): Promise<ReceivedFundsEntity | null> {
  const funds = await manager.findOneBy(ReceivedFundsEntity, { fundsId });
  if (!funds) return null;
  await lockInstructionMoney(manager, funds);
  const [rows]: [unknown[], number] = await manager.query(
    `UPDATE received_funds SET assigned_payment_id = $2, assigned_at = now()
      WHERE funds_id = $1 AND returned_by IS NULL AND assigned_at IS NULL AND kind <> 'unreadable'
        AND valued_centavos IS NOT NULL AND NOT ${sameMoneyReturnedElsewhere('received_funds')}
      RETURNING id`,
    [fundsId, paymentId],
  );
  return rows.length > 0 ? manager.findOneByOrFail(ReceivedFundsEntity, { fundsId }) : null;
}

/** Records the value in BRL centavos the books were told of the funds (once), with the arrival quote that gave it. */
export async function recordFundsValue(
  manager: EntityManager,
  fundsId: string,
  valuedCentavos: number,
  quote: ArrivalQuote | null = null,
): Promise<void> {
  await manager.query(
    `UPDATE received_funds SET valued_centavos = $2, quote_token = $3, quote_token_per_brl = $4, quoted_at = $5
      WHERE funds_id = $1`,
    [fundsId, valuedCentavos, quote?.token ?? null, quote?.token_per_brl ?? null, quote?.quoted_at ?? null],
  );
}

/** One record, whichever payment keeps it. */
export function findReceivedFundsById(
  manager: EntityManager,
  fundsId: string,
): Promise<ReceivedFundsEntity | null> {
  return manager.findOneBy(ReceivedFundsEntity, { fundsId });
}
