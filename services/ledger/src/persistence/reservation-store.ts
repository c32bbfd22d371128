import type { EntityManager } from 'typeorm';
import type { PendingPart, PendingRemainder, Reservation } from '../domain/posting-rules';

// The store of refund reservations (`reservations`) and the settlement rows they take from and give back to.

export type ReservationStatus = 'held' | 'confirmed' | 'released' | 'spent';

export interface StoredReservation extends Reservation {
  status: ReservationStatus;
  createdAt: Date;
}

interface ReservationRow {
  id: string;
  business_id: string;
  payment_id: string;
  amount_centavos: string;
  from_available_centavos: string;
  from_pending: PendingPart[];
  status: ReservationStatus;
  created_at: Date;
}

const toReservation = (row: ReservationRow): StoredReservation => ({
  id: row.id,
  businessId: row.business_id,
  paymentId: row.payment_id,
  amountCentavos: Number(row.amount_centavos),
  fromAvailableCentavos: Number(row.from_available_centavos),
  fromPending: row.from_pending.map((part) => ({
    payment_id: part.payment_id,
    centavos: Number(part.centavos),
  })),
  status: row.status,
  createdAt: row.created_at,
});

/** The reservation under this id, locked until the transaction ends when `lock` says so; null when there is none. */
export async function findReservation(
  manager: EntityManager,
  id: string,
  options: { lock: boolean },
): Promise<StoredReservation | null> {
  const rows = (await manager.query(
    `SELECT * FROM reservations WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`,
    [id],
  )) as ReservationRow[];
  return rows[0] ? toReservation(rows[0]) : null;
}

/** Records a new reservation, `held`; false (and nothing written) when one exists under its id. */
export async function insertReservation(manager: EntityManager, reservation: Reservation): Promise<boolean> {
  const rows = (await manager.query(
    `INSERT INTO reservations (id, business_id, payment_id, amount_centavos, from_available_centavos, from_pending,
       status)
     VALUES ($1, $2, $3, $4, $5, $6, 'held')
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      reservation.id,
      reservation.businessId,
      reservation.paymentId,
      reservation.amountCentavos,
      reservation.fromAvailableCentavos,
      JSON.stringify(reservation.fromPending),
    ],
  )) as unknown[];
  return rows.length > 0;
}

/** A reservation moves on: `confirmed` (its refund exists), `released` or `spent` (resolved now). */
export async function markReservation(
  manager: EntityManager,
  id: string,
  status: Exclude<ReservationStatus, 'held'>,
): Promise<void> {
  await manager.query(
    `UPDATE reservations SET status = $2,
       resolved_at = CASE WHEN $2 IN ('released', 'spent') THEN now() ELSE NULL END
     WHERE id = $1`,
    [id, status],
  );
}

/**
 * Reservations still `held` (no refund outcome, no check) created before `before`, oldest first, at most `limit`.
 * Not locked: the sweep asks the payment service about each, then decides under the reservation's lock.
 */
export async function unconfirmedReservations(
  manager: EntityManager,
  before: Date,
  limit: number,
): Promise<StoredReservation[]> {
  const rows = (await manager.query(
    `SELECT * FROM reservations WHERE status = 'held' AND created_at < $1 ORDER BY created_at LIMIT $2`,
    [before, limit],
  )) as ReservationRow[];
  return rows.map(toReservation);
}

interface RemainderRow {
  payment_id: string;
  business_id: string;
  remaining_centavos: string;
  available_on: Date;
  settled_at: Date | null;
}

export interface LockedRemainder extends PendingRemainder {
  businessId: string;
  settled: boolean;
}

const toRemainder = (row: RemainderRow): LockedRemainder => ({
  paymentId: row.payment_id,
  businessId: row.business_id,
  remainingCentavos: Number(row.remaining_centavos),
  availableOn: row.available_on,
  settled: row.settled_at !== null,
});

/**
 * These payments' settlements, locked in payment id order until the transaction ends (every reservation and release
 * locks them in that order, and before the balance, as the settlement sweep does: none waits on another in a cycle).
 */
export async function lockSettlementsOf(
  manager: EntityManager,
  paymentIds: readonly string[],
): Promise<LockedRemainder[]> {
  if (paymentIds.length === 0) return [];
  const rows = (await manager.query(
    `SELECT payment_id, business_id, remaining_centavos, available_on, settled_at FROM settlements
      WHERE payment_id = ANY($1) ORDER BY payment_id FOR UPDATE`,
    [[...paymentIds]],
  )) as RemainderRow[];
  return rows.map(toRemainder);
}

/**
 * The payment's settlement and every settlement of the business still waiting (its `pending` money), locked in payment
 * id order.
 */
export async function lockUnsettledSettlementsOf(
  manager: EntityManager,
  businessId: string,
  paymentId: string,
): Promise<LockedRemainder[]> {
  const rows = (await manager.query(
    `SELECT payment_id, business_id, remaining_centavos, available_on, settled_at FROM settlements
      WHERE payment_id = $2 OR (business_id = $1 AND settled_at IS NULL) ORDER BY payment_id FOR UPDATE`,
    [businessId, paymentId],
  )) as RemainderRow[];
  return rows.map(toRemainder);
}

/** A released reservation gives `centavos` back to what the (unsettled) settlement has left to move. */
export async function giveBackToSettlement(
  manager: EntityManager,
  paymentId: string,
  centavos: number,
): Promise<void> {
  await manager.query(
    `UPDATE settlements SET remaining_centavos = remaining_centavos + $2 WHERE payment_id = $1 AND settled_at IS NULL`,
    [paymentId, centavos],
  );
}
