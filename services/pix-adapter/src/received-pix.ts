import type { EntityManager } from 'typeorm';
import { pixChargePaid, type PixReceivedOnCharge } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { counter, inStoredTrace, tracerOf, type Logger } from '@gateway/observability';
import { ChargeEntity } from './persistence';
import type { PspCallbackItem } from './psp/callback';
import type { Cob } from './psp/cob';
import { pixAmountToCentavos } from './domain/amount';

/** `poll`: the cob re-read because its callback is overdue, or because the payment service asked. */
export type ReceivedPixSource = 'callback' | 'sweep' | 'poll';
export type ReceivedPixOutcome =
  'applied' | 'wrong_amount' | 'late' | 'duplicate' | 'unknown_txid' | 'unconfirmed';

const receivedPix = counter('pix_received_total', 'PIX reported by the PSP, by outcome and source', [
  'outcome',
  'source',
]);
const latePayments = counter('pix_late_payments_total', 'PIX paid into a charge that had already ended');
const tracer = tracerOf('@gateway/pix-adapter');

/** A PIX as the PSP's own `GET /cob/{txid}` lists it: only these may change a charge. */
export interface ConfirmedPix {
  endToEndId: string;
  txid: string;
  valorCentavos: number;
  horario: string;
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

/** Keeps a callback item that changes nothing (unknown txid, or not listed by the PSP) for the audit trail. */
export async function recordUnverifiedPix(
  manager: EntityManager,
  item: PspCallbackItem,
  outcome: 'unknown_txid' | 'unconfirmed',
  logger: Logger,
): Promise<void> {
  await manager.query(
    `INSERT INTO callbacks_received (end_to_end_id, txid, amount_centavos, outcome, source)
     VALUES ($1, $2, $3, $4, 'callback')`,
    [item.endToEndId, item.txid, item.valorCentavos, outcome],
  );
  receivedPix.inc({ outcome, source: 'callback' });
  logger.warn({ txid: item.txid, end_to_end_id: item.endToEndId, outcome }, 'PIX callback item not applied');
}

/**
 * Applies one PSP-confirmed PIX exactly once per endToEndId: the full amount into an active charge pays it; a
 * different amount is recorded; anything into an ended charge is a late payment, kept. Every confirmed PIX is
 * reported to the payment service (pix.charge.paid.v1) in the same transaction, which decides what it means there.
 * It is processed in the trace of the payment's creation, linked to what reported it (the callback request, a poll).
 */
export async function applyConfirmedPix(
  tx: Transaction,
  pix: ConfirmedPix,
  cobConcluded: boolean,
  source: ReceivedPixSource,
  logger: Logger,
): Promise<ReceivedPixOutcome> {
  const charge = await tx.manager.findOne(ChargeEntity, {
    where: { txid: pix.txid },
    lock: { mode: 'pessimistic_write' },
  });
  if (!charge) throw new Error(`charge ${pix.txid} vanished`);
  const attributes = { 'gateway.payment_id': charge.paymentId, 'gateway.pix.source': source };
  return inStoredTrace(tracer, 'pix received', charge.traceContext, { attributes }, async (span) => {
    const outcome = await applyToCharge(tx, charge, pix, cobConcluded, source, logger);
    span.setAttribute('gateway.pix.outcome', outcome);
    return outcome;
  });
}

async function applyToCharge(
  tx: Transaction,
  charge: ChargeEntity,
  pix: ConfirmedPix,
  cobConcluded: boolean,
  source: ReceivedPixSource,
  logger: Logger,
): Promise<ReceivedPixOutcome> {
  const decided: ReceivedPixOutcome =
    charge.status !== 'active'
      ? 'late'
      : pix.valorCentavos !== charge.amountCentavos || !cobConcluded
        ? 'wrong_amount'
        : 'applied';
  const claimed: unknown[] = await tx.manager.query(
    `INSERT INTO callbacks_received (end_to_end_id, txid, amount_centavos, outcome, source)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (end_to_end_id) WHERE outcome IN ('applied', 'wrong_amount', 'late') DO NOTHING
     RETURNING id`,
    [pix.endToEndId, pix.txid, pix.valorCentavos, decided, source],
  );
  const outcome = claimed.length > 0 ? decided : 'duplicate';
  receivedPix.inc({ outcome, source });
  if (outcome === 'duplicate') {
    // The sweeper re-reads PIX already handled; only a PSP sending a callback again is worth a row.
    if (source === 'callback')
      await tx.manager.query(
        `INSERT INTO callbacks_received (end_to_end_id, txid, amount_centavos, outcome, source)
       VALUES ($1, $2, $3, 'duplicate', $4)`,
        [pix.endToEndId, pix.txid, pix.valorCentavos, source],
      );
    return outcome;
  }
  const paidAt = new Date(pix.horario);
  if (outcome === 'applied') {
    await tx.manager.query(
      `UPDATE charges SET status = 'paid', paid_end_to_end_id = $2, updated_at = now()
        WHERE txid = $1 AND status = 'active'`,
      [pix.txid, pix.endToEndId],
    );
  } else if (outcome === 'late') {
    await tx.manager.query(
      `INSERT INTO late_payments (end_to_end_id, txid, payment_id, amount_centavos, charge_status, paid_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      [pix.endToEndId, pix.txid, charge.paymentId, pix.valorCentavos, charge.status, paidAt],
    );
    latePayments.inc();
    logger.warn(
      { txid: pix.txid, payment_id: charge.paymentId, end_to_end_id: pix.endToEndId, charge: charge.status },
      'late PIX: paid into a charge that had already ended; recorded in late_payments',
    );
  } else {
    logger.warn(
      { txid: pix.txid, expected: charge.amountCentavos, received: pix.valorCentavos },
      'PIX with a different amount: recorded, charge not paid',
    );
  }
  await tx.emit(pixChargePaid, {
    payment_id: charge.paymentId,
    txid: pix.txid,
    end_to_end_id: pix.endToEndId,
    amount_centavos: pix.valorCentavos,
    paid_at: paidAt.toISOString(),
  });
  return outcome;
}

/** Applies every PIX the PSP lists on the cob (each once, see applyConfirmedPix), as read outside the transaction. */
export async function applyListedPix(
  tx: Transaction,
  cob: Cob,
  source: ReceivedPixSource,
  logger: Logger,
): Promise<void> {
  for (const pix of cob.pix ?? []) {
    const confirmed = {
      endToEndId: pix.endToEndId,
      txid: cob.txid,
      valorCentavos: pixAmountToCentavos(pix.valor),
      horario: pix.horario,
    };
    await applyConfirmedPix(tx, confirmed, cob.status === 'CONCLUIDA', source, logger);
  }
}
