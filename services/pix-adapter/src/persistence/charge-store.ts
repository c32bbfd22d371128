import type { EntityManager } from 'typeorm';
import { ChargeEntity, type ChargeStatus } from './charge.entity';
import { claimDueRows } from './claims';

/** The charge as stored, locked until the transaction ends; null when no charge has this txid. */
export function lockCharge(manager: EntityManager, txid: string): Promise<ChargeEntity | null> {
  return manager.findOne(ChargeEntity, { where: { txid }, lock: { mode: 'pessimistic_write' } });
}

/**
 * Inserts the charge unless its payment (or txid) has one already; the stored one is returned either way. The entity
 * names every column, so a charge inserted is the one given: only one that was there already is read.
 */
export async function insertChargeOnce(manager: EntityManager, charge: ChargeEntity): Promise<ChargeEntity> {
  const inserted = await manager
    .createQueryBuilder()
    .insert()
    .into(ChargeEntity)
    .values(charge)
    .orIgnore()
    .returning('txid')
    .execute();
  if (inserted.raw.length > 0) return charge;
  return manager.findOneByOrFail(ChargeEntity, { paymentId: charge.paymentId });
}

/** Ends the charge with `status` if it is still active; returns how many rows changed (0 or 1). */
export async function endActiveCharge(
  manager: EntityManager,
  txid: string,
  status: Exclude<ChargeStatus, 'active' | 'paid'>,
): Promise<number> {
  const [, count]: [unknown[], number] = await manager.query(
    `UPDATE charges SET status = $2, updated_at = now() WHERE txid = $1 AND status = 'active'`,
    [txid, status],
  );
  return count;
}

/** Marks the charge paid by this PIX, if it is still active. */
export async function markChargePaid(
  manager: EntityManager,
  txid: string,
  endToEndId: string,
): Promise<void> {
  await manager.query(
    `UPDATE charges SET status = 'paid', paid_end_to_end_id = $2, updated_at = now()
      WHERE txid = $1 AND status = 'active'`,
    [txid, endToEndId],
  );
}

/** Moves an active charge's window into the past, so the sweeper closes it. */
export async function moveExpiryToPast(manager: EntityManager, txid: string): Promise<void> {
  await manager.query(
    `UPDATE charges SET expires_at = now() - interval '1 second' WHERE txid = $1 AND status = 'active'`,
    [txid],
  );
}

/** One active charge past its window that nobody else is re-checking, claimed for `claimMs` in a single statement. */
export async function claimDueCharge(
  manager: EntityManager,
  claimMs: number,
): Promise<{ txid: string; payment_id: string } | undefined> {
  const [claimed] = await claimDueRows<{ txid: string; payment_id: string }>(
    manager,
    {
      table: 'charges',
      key: 'txid',
      due: `status = 'active' AND expires_at <= now()`,
      orderBy: 'expires_at',
      claimedUntil: `now() + $1 * interval '1 millisecond'`,
      returning: 'txid, payment_id',
    },
    [claimMs],
    1,
  );
  return claimed;
}

/** Lets another sweep take the charge at once. */
export async function releaseChargeClaim(manager: EntityManager, txid: string): Promise<void> {
  await manager.query(`UPDATE charges SET claimed_until = NULL WHERE txid = $1`, [txid]);
}

/**
 * Up to `limit` active charges opened at least `overdueSeconds` ago that nobody else is re-checking, each claimed for
 * `overdueSeconds` but never past its expiry (from then on it is the sweeper's).
 */
export async function claimOverdueCharges(
  manager: EntityManager,
  overdueSeconds: number,
  limit: number,
): Promise<string[]> {
  const due = await claimDueRows<{ txid: string }>(
    manager,
    {
      table: 'charges',
      key: 'txid',
      due: `status = 'active' AND expires_at > now() AND created_at <= now() - $1 * interval '1 second'`,
      orderBy: 'created_at',
      claimedUntil: `LEAST(now() + $1 * interval '1 second', expires_at)`,
      returning: 'txid',
    },
    [overdueSeconds],
    limit,
  );
  return due.map((row) => row.txid);
}

/**
 * Notes that the PSP does not know the active charge `txid`: answers true the first time only (since it last knew
 * it), so what follows from it is said once.
 */
export async function markChargeUnknownAtPsp(manager: EntityManager, txid: string): Promise<boolean> {
  const [, count]: [unknown[], number] = await manager.query(
    `UPDATE charges SET unknown_at_psp_since = now()
      WHERE txid = $1 AND status = 'active' AND unknown_at_psp_since IS NULL`,
    [txid],
  );
  return count > 0;
}

/** Notes that the PSP knows the active charge `txid` (again): answers true when it had been unknown. */
export async function markChargeKnownAtPsp(manager: EntityManager, txid: string): Promise<boolean> {
  const [, count]: [unknown[], number] = await manager.query(
    `UPDATE charges SET unknown_at_psp_since = NULL
      WHERE txid = $1 AND status = 'active' AND unknown_at_psp_since IS NOT NULL`,
    [txid],
  );
  return count > 0;
}

/**
 * Fails the active charge `txid` if the PSP has not known it for `graceSeconds` (by the database's clock); answers
 * its payment, or nothing when it is not due (or no longer active).
 */
export async function failChargeUnknownAtPsp(
  manager: EntityManager,
  txid: string,
  graceSeconds: number,
): Promise<string | undefined> {
  const [rows]: [Array<{ payment_id: string }>, number] = await manager.query(
    `UPDATE charges SET status = 'failed', updated_at = now()
      WHERE txid = $1 AND status = 'active' AND unknown_at_psp_since <= now() - $2 * interval '1 second'
      RETURNING payment_id`,
    [txid, graceSeconds],
  );
  return rows[0]?.payment_id;
}
