import type { EntityManager } from 'typeorm';
import { pixChargeClosed, pixChargePaid, type AmountParts } from '@gateway/contracts';
import type { Transaction } from '@gateway/messaging';
import { counter, inStoredTrace, tracerOf, type Logger } from '@gateway/observability';
import { pixAmountToCentavos } from '../../domain/amount';
import { pixPayerOf } from '../../domain/payer';
import { componentesOf } from '../../domain/due-charge';
import {
  effectOfReceivedDuePix,
  effectOfReceivedPix,
  type ConfirmedPix,
  type ReceivedPixOutcome,
  type ReceivedPixSource,
} from '../../domain/received-pix';
import type { ChargeEntity } from '../../persistence';
import { endActiveCharge, lockCharge, markChargePaid } from '../../persistence/charge-store';
import {
  claimReceivedPix,
  recordDuplicatePix,
  recordLatePayment,
  recordUnverifiedCallback,
  unpaidPixOf,
} from '../../persistence/received-pix-store';
import type { PspCallbackItem } from '../../clients/psp/callback';
import type { Cob, PixRecebido } from '../../clients/psp/cob';

const receivedPix = counter('pix_received_total', 'PIX reported by the PSP, by outcome and source', [
  'outcome',
  'source',
]);
const latePayments = counter('pix_late_payments_total', 'PIX paid into a charge that had already ended');
const tracer = tracerOf('@gateway/pix-adapter');

/** Keeps a callback item that changes nothing (unknown txid, or not listed by the PSP) for the audit trail. */
export async function recordUnverifiedPix(
  manager: EntityManager,
  item: PspCallbackItem,
  outcome: 'unknown_txid' | 'unconfirmed',
  logger: Logger,
): Promise<void> {
  await recordUnverifiedCallback(manager, item, outcome);
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
  const charge = await lockCharge(tx.manager, pix.txid);
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
  const judged = charge.due
    ? effectOfReceivedDuePix({ ...charge, due: charge.due }, pix, cobConcluded)
    : { effect: effectOfReceivedPix(charge, pix.valorCentavos, cobConcluded), reason: null };
  const effect = judged.effect;
  const outcome = (await claimReceivedPix(tx.manager, pix, effect, source)) ? effect : 'duplicate';
  receivedPix.inc({ outcome, source });
  if (outcome === 'duplicate') {
    // The sweeper re-reads PIX already handled; only a PSP sending a callback again is worth a row.
    if (source === 'callback') await recordDuplicatePix(tx.manager, pix, source);
    return outcome;
  }
  const paidAt = new Date(pix.horario);
  if (outcome === 'applied') {
    await markChargePaid(tx.manager, pix.txid, pix.endToEndId);
  } else if (outcome === 'late') {
    await recordLatePayment(tx.manager, {
      pix,
      paymentId: charge.paymentId,
      chargeStatus: charge.status,
      paidAt,
    });
    latePayments.inc();
    logger.warn(
      { txid: pix.txid, payment_id: charge.paymentId, end_to_end_id: pix.endToEndId, charge: charge.status },
      'late PIX: paid into a charge that had already ended; recorded in late_payments',
    );
  } else {
    logger.warn(
      {
        txid: pix.txid,
        expected: charge.amountCentavos,
        received: pix.valorCentavos,
        ...(judged.reason === null ? {} : { reason: judged.reason, parts: pix.parts }),
      },
      'PIX with a different amount: recorded, charge not paid',
    );
  }
  await tx.emit(pixChargePaid, {
    payment_id: charge.paymentId,
    txid: pix.txid,
    end_to_end_id: pix.endToEndId,
    amount_centavos: pix.valorCentavos,
    paid_at: paidAt.toISOString(),
    payer: pix.payer,
    // A charge with a due date: the parts that pay it, null for a Pix that does not (the payment service never
    // measures it against the original). An immediate charge's Pix says nothing, as it always did.
    ...(charge.due ? { amount_parts: dueChargeParts(charge, pix, outcome) } : {}),
  });
  // A cobv the PSP concluded with a Pix we did not accept can never be paid again: the charge fails now, rather than
  // staying open (and then `underpaid`) until its window ends. The Pix goes with the closure, held for the operator.
  if (charge.due && outcome === 'wrong_amount' && cobConcluded) await closeNotAccepted(tx, charge, logger);
  return outcome;
}

/** The closure's detail of a due-date charge whose concluding Pix was not accepted. */
export const AMOUNT_NOT_ACCEPTED_DETAIL = 'valor do Pix fora das regras da cobrança com vencimento';

async function closeNotAccepted(tx: Transaction, charge: ChargeEntity, logger: Logger): Promise<void> {
  if ((await endActiveCharge(tx.manager, charge.txid, 'failed')) === 0) return;
  await tx.emit(pixChargeClosed, {
    payment_id: charge.paymentId,
    txid: charge.txid,
    reason: 'failed',
    detail: AMOUNT_NOT_ACCEPTED_DETAIL,
    cause: 'amount_not_accepted',
    received_pix: await unpaidPixOf(tx.manager, charge.txid),
  });
  logger.warn(
    { txid: charge.txid, payment_id: charge.paymentId },
    'due-date charge failed: the PSP concluded its cobv with a Pix whose amount was not accepted',
  );
}

/** Applies every PIX the PSP lists on the cob (each once, see applyConfirmedPix), as read outside the transaction. */
export async function applyListedPix(
  tx: Transaction,
  cob: Cob,
  source: ReceivedPixSource,
  logger: Logger,
): Promise<void> {
  for (const pix of cob.pix ?? [])
    await applyConfirmedPix(tx, confirmedPix(cob, pix), cob.status === 'CONCLUIDA', source, logger);
}

/** The parts a Pix into a charge with a due date reports: those that paid it, none for one that did not. */
export function dueChargeParts(
  charge: Pick<ChargeEntity, 'due'>,
  pix: Pick<ConfirmedPix, 'parts'>,
  outcome: ReceivedPixOutcome,
): AmountParts | null {
  return charge.due && outcome === 'applied' ? pix.parts : null;
}

/** A PIX the cob lists, with the amount the PSP states for it. */
export function confirmedPix(cob: Cob, listed: PixRecebido): ConfirmedPix {
  return {
    endToEndId: listed.endToEndId,
    txid: cob.txid,
    valorCentavos: pixAmountToCentavos(listed.valor),
    horario: listed.horario,
    payer: pixPayerOf(listed.pagador),
    parts: listed.componentesValor === undefined ? null : componentesOf(listed.componentesValor),
  };
}
