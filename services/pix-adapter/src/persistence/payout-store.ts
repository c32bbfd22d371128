import type { EntityManager } from 'typeorm';
import { claimDueRows } from './claims';
import { PayoutEntity } from './payout.entity';

export type NewPayout = Pick<
  PayoutEntity,
  | 'payoutId'
  | 'businessId'
  | 'idEnvio'
  | 'amountCentavos'
  | 'pixKey'
  | 'pixKeyType'
  | 'holderDocument'
  | 'correlationId'
  | 'requestedAt'
>;

/**
 * Stores the payout `requested`, claimed for `leaseSeconds` by whoever stores it (it sends at once), unless one with its
 * id is stored already; returns whether it was inserted.
 */
export async function insertPayoutOnce(
  manager: EntityManager,
  payout: NewPayout,
  leaseSeconds: number,
): Promise<boolean> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO payouts (payout_id, business_id, id_envio, amount_centavos, pix_key, pix_key_type, holder_document,
                          status, correlation_id, requested_at, claimed_until)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'requested', $8, $9, now() + $10 * interval '1 second')
     ON CONFLICT (payout_id) DO NOTHING RETURNING payout_id`,
    [
      payout.payoutId,
      payout.businessId,
      payout.idEnvio,
      payout.amountCentavos,
      payout.pixKey,
      payout.pixKeyType,
      payout.holderDocument,
      payout.correlationId,
      payout.requestedAt,
      leaseSeconds,
    ],
  );
  return inserted.length > 0;
}

/**
 * Takes a payout still `requested` that nobody else is trying (never claimed, or its claim lapsed) for `leaseSeconds`;
 * returns whether it was taken.
 */
export async function claimRequestedPayout(
  manager: EntityManager,
  payoutId: string,
  leaseSeconds: number,
): Promise<boolean> {
  const [claimed]: [unknown[], number] = await manager.query(
    `UPDATE payouts SET claimed_until = now() + $2 * interval '1 second'
      WHERE payout_id = $1 AND status = 'requested' AND (claimed_until IS NULL OR claimed_until <= now())
      RETURNING payout_id`,
    [payoutId, leaseSeconds],
  );
  return claimed.length > 0;
}

/** The payout locked until the transaction ends, if it is still open (requested or processing); else null. */
export async function lockOpenPayout(manager: EntityManager, payoutId: string): Promise<PayoutEntity | null> {
  const payout = await manager.findOne(PayoutEntity, {
    where: { payoutId },
    lock: { mode: 'pessimistic_write' },
  });
  return payout && (payout.status === 'requested' || payout.status === 'processing') ? payout : null;
}

/** Up to `limit` open payouts due for another attempt or read that nobody else is on, each claimed for `leaseSeconds`. */
export async function claimDuePayouts(
  manager: EntityManager,
  leaseSeconds: number,
  limit: number,
): Promise<string[]> {
  const due = await claimDueRows<{ payout_id: string }>(
    manager,
    {
      table: 'payouts',
      key: 'payout_id',
      due: `status IN ('requested', 'processing') AND next_attempt_at <= now()`,
      orderBy: 'next_attempt_at',
      claimedUntil: `now() + $1 * interval '1 second'`,
      returning: 'payout_id',
    },
    [leaseSeconds],
    limit,
  );
  return due.map((row) => row.payout_id);
}
