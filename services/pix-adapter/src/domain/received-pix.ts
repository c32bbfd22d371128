import {
  saoPauloDay,
  type AmountParts,
  type PixChargeClosed,
  type PixDue,
  type PixPayer,
} from '@gateway/contracts';
import { judgeDuePix, lastPayingDay } from './due-charge';

/** A PIX as the PSP's own `GET /cob/{txid}` lists it: only these may change a charge. */
export interface ConfirmedPix {
  endToEndId: string;
  txid: string;
  valorCentavos: number;
  horario: string;
  /** Who paid, masked, when the PSP lists it. */
  payer: PixPayer | null;
  /** What its amount is made of (`componentesValor`), when the PSP listed it readably; a cobv's Pix has it. */
  parts: AmountParts | null;
}

/** `poll`: the cob re-read because its callback is overdue, or because the payment service asked. */
export type ReceivedPixSource = 'callback' | 'sweep' | 'poll';
export type ReceivedPixOutcome =
  'applied' | 'wrong_amount' | 'late' | 'duplicate' | 'unknown_txid' | 'unconfirmed';

/** What a PSP-confirmed PIX does to its charge, before the once-per-endToEndId check (which may make it a duplicate). */
export type ReceivedPixEffect = Extract<ReceivedPixOutcome, 'applied' | 'wrong_amount' | 'late'>;

/**
 * The full amount into an active charge whose cob the PSP concluded pays it; any other amount (or a cob not
 * concluded) is recorded without paying it; anything into a charge that had already ended is a late payment.
 */
export function effectOfReceivedPix(
  charge: { status: string; amountCentavos: number },
  valorCentavos: number,
  cobConcluded: boolean,
): ReceivedPixEffect {
  if (charge.status !== 'active') return 'late';
  return valorCentavos !== charge.amountCentavos || !cobConcluded ? 'wrong_amount' : 'applied';
}

/**
 * What a PSP-confirmed Pix does to a charge with a due date: into an active charge whose cobv the PSP concluded, it
 * pays it when its parts add up to it and each is within what the rules allow on the day it was paid (in São Paulo,
 * by the Pix's own `horario`), whatever its amount against the original; otherwise it is a wrong amount, recorded and
 * paying nothing. A Pix paid on a day before the charge was created is a wrong amount (its day is not to be believed:
 * it would earn discount days that never were); one paid after the last day the charge may be paid on
 * (`lastPayingDay`) is late, whatever the charge's state (a PSP down when the window ended must not let it pay), as is
 * anything into a charge that had ended.
 */
export function effectOfReceivedDuePix(
  charge: { status: string; amountCentavos: number; due: PixDue; createdAt: Date },
  pix: Pick<ConfirmedPix, 'valorCentavos' | 'parts' | 'horario'>,
  cobConcluded: boolean,
): { effect: ReceivedPixEffect; reason: string | null } {
  if (charge.status !== 'active') return { effect: 'late', reason: null };
  const payDay = saoPauloDay(new Date(pix.horario));
  if (payDay > lastPayingDay(charge.due))
    return { effect: 'late', reason: 'paid after the last payable day' };
  if (!cobConcluded) return { effect: 'wrong_amount', reason: 'cobv not concluded' };
  if (payDay < saoPauloDay(charge.createdAt))
    return { effect: 'wrong_amount', reason: 'paid before the charge was created' };
  const judged = judgeDuePix(charge.due, charge.amountCentavos, pix.valorCentavos, pix.parts, payDay);
  return judged.pays
    ? { effect: 'applied', reason: null }
    : { effect: 'wrong_amount', reason: judged.reason };
}

/**
 * Why a charge ended unpaid, as its closure tells the payment service: `failed` when its cob was removed, otherwise
 * `underpaid` when it took PIX that did not pay it, else `expired`.
 */
export function closureReason(removed: boolean, unpaidPixCount: number): PixChargeClosed['reason'] {
  if (removed) return 'failed';
  return unpaidPixCount > 0 ? 'underpaid' : 'expired';
}
