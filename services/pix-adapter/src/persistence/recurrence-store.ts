import type { EntityManager } from 'typeorm';
import type { PixInstructions } from '@gateway/contracts';
import { RecurrenceEntity, type RecStatus } from './recurrence.entity';
import { claimDueRows } from './claims';

/**
 * Records the recurrence being opened, claimed for `claimMs` by the delivery that inserts it; answers whether this
 * call inserted it (a first attempt) and the row as stored.
 */
export async function insertRecurrenceOnce(
  manager: EntityManager,
  row: Omit<RecurrenceEntity, 'claimedUntil' | 'createdAt' | 'updatedAt'>,
  claimMs: number,
): Promise<{ inserted: boolean; recurrence: RecurrenceEntity }> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO recurrences (subscription_id, business_id, journey, retry_policy, id_rec, psp_status, id_solic_rec,
       loc_id, first_payment_id, first_payment_txid, authorization_shown, authorization_expires_at, cancelled_by,
       psp_account_id, claimed_until)
     VALUES ($1, $2, $3, $4, NULL, NULL, NULL, NULL, $5, NULL, NULL, $6, NULL, $7, now() + $8 * interval '1 millisecond')
     ON CONFLICT (subscription_id) DO NOTHING RETURNING subscription_id`,
    [
      row.subscriptionId,
      row.businessId,
      row.journey,
      row.retryPolicy,
      row.firstPaymentId,
      row.authorizationExpiresAt,
      row.pspAccountId,
      claimMs,
    ],
  );
  const recurrence = await manager.findOneByOrFail(RecurrenceEntity, { subscriptionId: row.subscriptionId });
  return { inserted: inserted.length > 0, recurrence };
}

/** Claims a recurrence not yet opened whose last claim lapsed (its opener died or lost the PSP's answer). */
export async function claimUnopenedRecurrence(
  manager: EntityManager,
  subscriptionId: string,
  claimMs: number,
): Promise<boolean> {
  const [, count]: [unknown[], number] = await manager.query(
    `UPDATE recurrences SET claimed_until = now() + $2 * interval '1 millisecond', updated_at = now()
      WHERE subscription_id = $1 AND id_rec IS NULL AND (claimed_until IS NULL OR claimed_until <= now())`,
    [subscriptionId, claimMs],
  );
  return count > 0;
}

/** Lets the next delivery try again at once (the PSP refused what we sent). */
export async function releaseRecurrenceClaim(manager: EntityManager, subscriptionId: string): Promise<void> {
  await manager.query(
    `UPDATE recurrences SET claimed_until = NULL WHERE subscription_id = $1 AND id_rec IS NULL`,
    [subscriptionId],
  );
}

/** What the opening learnt at the PSP, each part set once. */
export async function recordRecurrenceOpened(
  manager: EntityManager,
  subscriptionId: string,
  opened: {
    idRec?: string;
    status?: RecStatus;
    idSolicRec?: string;
    locId?: number;
    firstPaymentTxid?: string;
    authorization?: PixInstructions;
  },
): Promise<void> {
  await manager.query(
    `UPDATE recurrences SET
        id_rec = COALESCE(id_rec, $2),
        psp_status = COALESCE(psp_status, $3),
        id_solic_rec = COALESCE(id_solic_rec, $4),
        loc_id = COALESCE(loc_id, $5),
        first_payment_txid = COALESCE(first_payment_txid, $6),
        authorization_shown = COALESCE(authorization_shown, $7::jsonb),
        claimed_until = CASE WHEN $2::text IS NULL THEN claimed_until END,
        updated_at = now()
      WHERE subscription_id = $1`,
    [
      subscriptionId,
      opened.idRec ?? null,
      opened.status ?? null,
      opened.idSolicRec ?? null,
      opened.locId ?? null,
      opened.firstPaymentTxid ?? null,
      opened.authorization === undefined ? null : JSON.stringify(opened.authorization),
    ],
  );
}

/**
 * Moves the recurrence from `from` to the status the PSP states; answers whether it moved (once: a replay, or a
 * concurrent reader, finds it moved and reports nothing).
 */
export async function moveRecurrenceStatus(
  manager: EntityManager,
  subscriptionId: string,
  from: RecStatus,
  to: RecStatus,
  cancelledBy: string | null,
): Promise<boolean> {
  const [, count]: [unknown[], number] = await manager.query(
    `UPDATE recurrences SET psp_status = $3, cancelled_by = $4, updated_at = now()
      WHERE subscription_id = $1 AND psp_status = $2`,
    [subscriptionId, from, to, to === 'CANCELADA' ? cancelledBy : null],
  );
  return count > 0;
}

/** Up to `limit` recurrences still pending or active not checked for `recheckSeconds`, claimed for that long. */
export async function claimRecurrencesToCheck(
  manager: EntityManager,
  recheckSeconds: number,
  limit: number,
): Promise<string[]> {
  const rows = await claimDueRows<{ subscription_id: string }>(
    manager,
    {
      table: 'recurrences',
      key: 'subscription_id',
      due: `psp_status IN ('CRIADA', 'APROVADA') AND updated_at <= now() - $1 * interval '1 second'`,
      orderBy: 'updated_at',
      claimedUntil: `now() + $1 * interval '1 second'`,
      returning: 'subscription_id',
    },
    [recheckSeconds],
    limit,
  );
  return rows.map((row) => row.subscription_id);
}

/** Up to `limit` open cycles not checked for `recheckSeconds`, claimed for that long. */
export async function claimCyclesToCheck(
  manager: EntityManager,
  recheckSeconds: number,
  limit: number,
): Promise<string[]> {
  const rows = await claimDueRows<{ txid: string }>(
    manager,
    {
      table: 'charges',
      key: 'txid',
      due: `kind = 'cobr' AND status = 'active' AND updated_at <= now() - $1 * interval '1 second'`,
      orderBy: 'updated_at',
      claimedUntil: `now() + $1 * interval '1 second'`,
      returning: 'txid',
    },
    [recheckSeconds],
    limit,
  );
  return rows.map((row) => row.txid);
}

/** Notes that the cycle was checked now (the poll then leaves it for `recheckSeconds`). */
export async function touchCharge(manager: EntityManager, txid: string): Promise<void> {
  await manager.query(`UPDATE charges SET updated_at = now() WHERE txid = $1`, [txid]);
}

/** Notes that the recurrence was checked now. */
export async function touchRecurrence(manager: EntityManager, subscriptionId: string): Promise<void> {
  await manager.query(`UPDATE recurrences SET updated_at = now() WHERE subscription_id = $1`, [
    subscriptionId,
  ]);
}

/** Counts the cycle's failed attempts as reported, from `from` to `to`; answers whether this call did it. */
export async function markAttemptsReported(
  manager: EntityManager,
  txid: string,
  from: number,
  to: number,
): Promise<boolean> {
  const [, count]: [unknown[], number] = await manager.query(
    `UPDATE charges SET attempts_reported = $3, updated_at = now() WHERE txid = $1 AND attempts_reported = $2`,
    [txid, from, to],
  );
  return count > 0;
}
