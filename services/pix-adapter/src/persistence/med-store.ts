import type { EntityManager } from 'typeorm';
import type { PixMedReported } from '@gateway/contracts';
import { claimDueRows } from './claims';

/** A MED devolução as this service keeps it. */
export interface MedDevolucaoRow {
  end_to_end_id: string;
  devolucao_id: string;
  payment_id: string;
  status: PixMedReported['status'];
}

/**
 * Keeps what the PSP says of a MED devolução: inserted the first time, its status moved when an open one became final.
 * Answers whether anything changed (so the change is told once), in one statement under the row's lock.
 */
export async function recordMedStatus(manager: EntityManager, med: PixMedReported): Promise<boolean> {
  // An INSERT answers its RETURNING rows: none when the conflict's update did not apply.
  const rows: unknown[] = await manager.query(
    `INSERT INTO med_devolucoes (end_to_end_id, devolucao_id, payment_id, amount_centavos, natureza, status, motivo)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (end_to_end_id, devolucao_id) DO UPDATE
       SET status = EXCLUDED.status, motivo = EXCLUDED.motivo, updated_at = now()
       WHERE med_devolucoes.status = 'EM_PROCESSAMENTO' AND EXCLUDED.status <> 'EM_PROCESSAMENTO'
     RETURNING id`,
    [
      med.end_to_end_id,
      med.devolucao_id,
      med.payment_id,
      med.amount_centavos,
      med.natureza,
      med.status,
      med.motivo,
    ],
  );
  return rows.length > 0;
}

/** The MED devolução of a payment still in processing, if any (the newest). */
export async function openMedOf(manager: EntityManager, paymentId: string): Promise<MedDevolucaoRow | null> {
  const rows: MedDevolucaoRow[] = await manager.query(
    `SELECT end_to_end_id, devolucao_id, payment_id, status FROM med_devolucoes
      WHERE payment_id = $1 AND status = 'EM_PROCESSAMENTO' ORDER BY created_at DESC, id DESC LIMIT 1`,
    [paymentId],
  );
  return rows[0] ?? null;
}

/**
 * Up to `limit` MED devoluções still in processing, unchanged for `overdueSeconds` and re-checked by nobody else, each
 * claimed for `overdueSeconds`.
 */
export function claimOverdueMeds(
  manager: EntityManager,
  overdueSeconds: number,
  limit: number,
): Promise<MedDevolucaoRow[]> {
  return claimDueRows<MedDevolucaoRow>(
    manager,
    {
      table: 'med_devolucoes',
      key: 'id',
      due: `status = 'EM_PROCESSAMENTO' AND updated_at <= now() - $1 * interval '1 second'`,
      orderBy: 'updated_at',
      claimedUntil: `now() + $1 * interval '1 second'`,
      returning: 'end_to_end_id, devolucao_id, payment_id, status',
    },
    [overdueSeconds],
    limit,
  );
}

/** A MED devolução of a payment's Pix, with when it appeared (its infraction is looked up from then). */
export async function medOfPayment(
  manager: EntityManager,
  paymentId: string,
  endToEndId: string,
  devolucaoId: string,
): Promise<(MedDevolucaoRow & { created_at: Date }) | null> {
  const rows: Array<MedDevolucaoRow & { created_at: Date }> = await manager.query(
    `SELECT end_to_end_id, devolucao_id, payment_id, status, created_at FROM med_devolucoes
      WHERE payment_id = $1 AND end_to_end_id = $2 AND devolucao_id = $3`,
    [paymentId, endToEndId, devolucaoId],
  );
  return rows[0] ?? null;
}
