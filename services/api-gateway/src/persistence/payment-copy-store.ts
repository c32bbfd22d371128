import type { EntityManager } from 'typeorm';
import type { CryptoInstructions, PaymentRecord, PixInstructions } from '@gateway/contracts';

/** The gateway's copy of a payment (docs/adr/0042-gateway-payment-read-model.md). */
export interface PaymentCopy {
  record: PaymentRecord;
  /** The rail instructions the last reply carried (events carry none); null when no reply brought any. */
  instructions: PixInstructions | CryptoInstructions | null;
  /** Marked to be read again before it is answered (a change is on its way, or one was announced without its record). */
  stale: boolean;
  /** How long ago the payment service last sent it, by the database's clock. */
  ageMs: number;
}

/**
 * Stores what the payment service sent of a payment, only over an older copy (a lower `version`) or the same one:
 * events and replies arrive in any order, and a copy never goes back. `fresh` (a reply, a read of the payment service)
 * says the record is the payment as it stands now: it clears a stale mark, which an event of a version already held
 * does not, even of a newer version (the change that marked it may not be the one it brings). Instructions absent from what is sent are kept. A
 * record without a version (from a release before it was carried) is not stored.
 */
export async function storePaymentCopy(
  manager: EntityManager,
  record: PaymentRecord,
  instructions: PixInstructions | CryptoInstructions | null,
  fresh: boolean,
): Promise<void> {
  if (record.version === undefined) return;
  await manager.query(
    `INSERT INTO payment_copies AS copy (payment_id, business_id, version, record, instructions, stale, stored_at)
     VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, false, now())
     ON CONFLICT (payment_id) DO UPDATE
       SET version = EXCLUDED.version,
           record = EXCLUDED.record,
           instructions = COALESCE(EXCLUDED.instructions, copy.instructions),
           stale = copy.stale AND NOT $6,
           stored_at = CASE WHEN $6 OR copy.version < EXCLUDED.version THEN EXCLUDED.stored_at ELSE copy.stored_at END
     WHERE copy.version <= EXCLUDED.version`,
    [
      record.payment_id,
      record.business_id,
      record.version,
      JSON.stringify(record),
      instructions === null ? null : JSON.stringify(instructions),
      fresh,
    ],
  );
}

/** Marks the copy of the business's payment to be read again before it is answered (none is made when there is none). */
export async function markPaymentCopyStale(
  manager: EntityManager,
  businessId: string,
  paymentId: string,
): Promise<void> {
  await manager.query(`UPDATE payment_copies SET stale = true WHERE payment_id = $1 AND business_id = $2`, [
    paymentId,
    businessId,
  ]);
}

/** The copy of the business's payment, if the gateway holds one. */
export async function findPaymentCopy(
  manager: EntityManager,
  businessId: string,
  paymentId: string,
): Promise<PaymentCopy | null> {
  const rows: Array<{
    record: PaymentRecord;
    instructions: PixInstructions | CryptoInstructions | null;
    stale: boolean;
    age_ms: number;
  }> = await manager.query(
    `SELECT record, instructions, stale, (EXTRACT(EPOCH FROM now() - stored_at) * 1000)::float8 AS age_ms
       FROM payment_copies WHERE payment_id = $1 AND business_id = $2`,
    [paymentId, businessId],
  );
  const row = rows[0];
  return row
    ? { record: row.record, instructions: row.instructions, stale: row.stale, ageMs: row.age_ms }
    : null;
}
