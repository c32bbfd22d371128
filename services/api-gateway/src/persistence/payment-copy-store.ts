import type { EntityManager } from 'typeorm';
import type { CryptoInstructions, PaymentRecord, PixInstructions } from '@gateway/contracts';

/** The gateway's copy of a payment (docs/adr/0042-gateway-payment-read-model.md). */
export interface PaymentCopy {
  record: PaymentRecord;
  /** The rail instructions the last reply or change carried (outcome events carry none); null when none did. */
  instructions: PixInstructions | CryptoInstructions | null;
  /** A change is in flight (or was announced without its record) and the copy does not hold its version yet. */
  stale: boolean;
  /** How long ago the copy was known true (a read's answer: when stored; an event: when it occurred). */
  ageMs: number;
}

/**
 * Stores what the payment service sent of a payment, only over an older copy (a lower `version`) or the same one:
 * events and replies arrive in any order, twice, from any replica, and a copy never goes back. Instructions absent
 * from what is sent are kept. `asOf`: when the record was true, an event's `occurred_at` (a late event is not made
 * younger than it is); a reply or a read is true now (null). The record must carry its version.
 */
export async function storePaymentCopy(
  manager: EntityManager,
  record: PaymentRecord,
  instructions: PixInstructions | CryptoInstructions | null,
  asOf: string | null,
): Promise<void> {
  await manager.query(
    `INSERT INTO payment_copies AS copy (payment_id, business_id, version, record, instructions, stored_at)
     VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, LEAST(now(), COALESCE($6::timestamptz, now())))
     ON CONFLICT (payment_id) DO UPDATE
       SET version = EXCLUDED.version,
           record = EXCLUDED.record,
           instructions = COALESCE(EXCLUDED.instructions, copy.instructions),
           stored_at = GREATEST(copy.stored_at, EXCLUDED.stored_at)
     WHERE copy.version <= EXCLUDED.version`,
    [
      record.payment_id,
      record.business_id,
      record.version,
      JSON.stringify(record),
      instructions === null ? null : JSON.stringify(instructions),
      asOf,
    ],
  );
}

/**
 * Marks the copy of the business's payment (none is made when there is none): it is not answered until it holds a
 * version newer than the one it holds now (the change's answer, or its event), or for `forMs` at most (a change that
 * failed or never committed, an answer and an event both lost).
 */
export async function markPaymentCopyStale(
  manager: EntityManager,
  businessId: string,
  paymentId: string,
  forMs: number,
): Promise<void> {
  await manager.query(
    `UPDATE payment_copies
        SET stale_below = GREATEST(stale_below, version + 1), stale_until = now() + make_interval(secs => $3)
      WHERE payment_id = $1 AND business_id = $2`,
    [paymentId, businessId, forMs / 1000],
  );
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
    `SELECT record, instructions, (version < stale_below AND stale_until > now()) AS stale,
            (EXTRACT(EPOCH FROM now() - stored_at) * 1000)::float8 AS age_ms
       FROM payment_copies WHERE payment_id = $1 AND business_id = $2`,
    [paymentId, businessId],
  );
  const row = rows[0];
  return row
    ? { record: row.record, instructions: row.instructions, stale: row.stale, ageMs: row.age_ms }
    : null;
}
