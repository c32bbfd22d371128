import type { EntityManager } from 'typeorm';
import type { PixReceivedOnCharge } from '@gateway/contracts';
import type { ConfirmedPix, ReceivedPixEffect, ReceivedPixSource } from '../domain/received-pix';

/** Keeps a callback item that changes nothing (unknown txid, or not listed by the PSP) for the audit trail. */
export async function recordUnverifiedCallback(
  manager: EntityManager,
  item: { endToEndId: string; txid: string; valorCentavos: number },
  outcome: 'unknown_txid' | 'unconfirmed',
): Promise<void> {
  await manager.query(
    `INSERT INTO callbacks_received (end_to_end_id, txid, amount_centavos, outcome, source)
     VALUES ($1, $2, $3, $4, 'callback')`,
    [item.endToEndId, item.txid, item.valorCentavos, outcome],
  );
}

/**
 * Records the PIX with its effect unless its endToEndId is recorded with an effect already; returns whether it was
 * (false: a duplicate).
 */
export async function claimReceivedPix(
  manager: EntityManager,
  pix: ConfirmedPix,
  effect: ReceivedPixEffect,
  source: ReceivedPixSource,
): Promise<boolean> {
  const claimed: unknown[] = await manager.query(
    `INSERT INTO callbacks_received (end_to_end_id, txid, amount_centavos, outcome, source)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (end_to_end_id) WHERE outcome IN ('applied', 'wrong_amount', 'late') DO NOTHING
     RETURNING id`,
    [pix.endToEndId, pix.txid, pix.valorCentavos, effect, source],
  );
  return claimed.length > 0;
}

/** Keeps a PIX reported again, for the audit trail. */
export async function recordDuplicatePix(
  manager: EntityManager,
  pix: ConfirmedPix,
  source: ReceivedPixSource,
): Promise<void> {
  await manager.query(
    `INSERT INTO callbacks_received (end_to_end_id, txid, amount_centavos, outcome, source)
     VALUES ($1, $2, $3, 'duplicate', $4)`,
    [pix.endToEndId, pix.txid, pix.valorCentavos, source],
  );
}

/** Keeps a PIX paid into a charge that had already ended (once per endToEndId). */
export async function recordLatePayment(
  manager: EntityManager,
  late: { pix: ConfirmedPix; paymentId: string; chargeStatus: string; paidAt: Date },
): Promise<void> {
  await manager.query(
    `INSERT INTO late_payments (end_to_end_id, txid, payment_id, amount_centavos, charge_status, paid_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [
      late.pix.endToEndId,
      late.pix.txid,
      late.paymentId,
      late.pix.valorCentavos,
      late.chargeStatus,
      late.paidAt,
    ],
  );
}

/**
 * The PSP-confirmed PIX an active charge took without being paid (other amount, or a cob not concluded): what its
 * closure tells the payment service, whose pix.charge.paid.v1 for them may not be handled yet.
 */
export async function unpaidPixOf(manager: EntityManager, txid: string): Promise<PixReceivedOnCharge[]> {
  const rows: Array<{ end_to_end_id: string; amount_centavos: string }> = await manager.query(
    `SELECT end_to_end_id, amount_centavos FROM callbacks_received
      WHERE txid = $1 AND outcome = 'wrong_amount' ORDER BY id`,
    [txid],
  );
  return rows.map((row) => ({
    end_to_end_id: row.end_to_end_id,
    amount_centavos: Number(row.amount_centavos),
  }));
}

/**
 * The PIX a payment's refunds return: the one that paid its charge; failing that (a payment the payment service
 * counts as paid from PIX that did not pay the charge by themselves) the largest PIX the PSP confirmed on it.
 */
export async function refundablePixOf(manager: EntityManager, paymentId: string): Promise<string | null> {
  const rows: Array<{ end_to_end_id: string | null }> = await manager.query(
    `SELECT COALESCE(c.paid_end_to_end_id,
              (SELECT r.end_to_end_id FROM callbacks_received r
                WHERE r.txid = c.txid AND r.outcome IN ('applied', 'wrong_amount', 'late')
                ORDER BY r.amount_centavos DESC, r.id LIMIT 1)) AS end_to_end_id
       FROM charges c WHERE c.payment_id = $1`,
    [paymentId],
  );
  return rows[0]?.end_to_end_id ?? null;
}
