import type { EntityManager } from 'typeorm';
import { newPublicId, type PaymentMethod } from '@gateway/contracts';
import type { FeeTerms } from '../domain/fee';

// The store of create reservations (payment_create_requests): the payment id each create command's message id gets.

/** What a create's reservation answers (one round trip for all of it). */
export interface CreateReservation {
  paymentId: string;
  /** The payment exists already (a redelivery of a create that went through). */
  created: boolean;
  /** The business's own fee rule for the method, as it stands now; null when it has none. */
  feeRule: FeeTerms | null;
}

/**
 * The payment id a create command reserved (the same message id always gets the same payment id), whether that
 * payment exists already (a redelivery of a create that went through), and the business's fee rule for the method:
 * one round trip for the three.
 */
export async function reservePaymentId(
  manager: EntityManager,
  createMessageId: string,
  feeRuleOf: { businessId: string; method: PaymentMethod },
): Promise<CreateReservation> {
  const rows: Array<{
    payment_id: string;
    created: boolean;
    percent_bps: number | null;
    // int8: pg answers a string; centavos stay below 2^53, so a number is exact.
    fixed_centavos: string | null;
  }> = await manager.query(
    `WITH reserved AS (
       INSERT INTO payment_create_requests (message_id, payment_id) VALUES ($1, $2)
       ON CONFLICT (message_id) DO UPDATE SET message_id = EXCLUDED.message_id
       RETURNING payment_id, EXISTS (SELECT 1 FROM payments WHERE id = payment_create_requests.payment_id) AS created)
     SELECT reserved.payment_id, reserved.created, rule.percent_bps, rule.fixed_centavos
       FROM reserved LEFT JOIN fee_rules rule ON rule.business_id = $3 AND rule.method = $4`,
    [createMessageId, newPublicId('pay'), feeRuleOf.businessId, feeRuleOf.method],
  );
  const reserved = rows[0];
  if (!reserved) throw new Error('payment id reservation returned no row');
  return {
    paymentId: reserved.payment_id,
    created: reserved.created,
    feeRule:
      reserved.percent_bps === null || reserved.fixed_centavos === null
        ? null
        : { percentBps: reserved.percent_bps, fixedCentavos: Number(reserved.fixed_centavos) },
  };
}

/**
 * Deletes up to `batchSize` create reservations older than `olderThanHours`; returns how many. Once its message id
 * can no longer come again, a reservation only takes space: the payment row and the inbox keep what matters.
 */
export async function purgeCreateReservations(
  manager: EntityManager,
  olderThanHours: number,
  batchSize: number,
): Promise<number> {
  const [, deleted]: [unknown[], number] = await manager.query(
    `DELETE FROM payment_create_requests
      WHERE message_id IN (
        SELECT message_id FROM payment_create_requests
         WHERE created_at < now() - make_interval(hours => $1)
         LIMIT $2)`,
    [olderThanHours, batchSize],
  );
  return deleted;
}
