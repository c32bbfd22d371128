import type { PixChargeClosed, PixPayer } from '@gateway/contracts';

/** A PIX as the PSP's own `GET /cob/{txid}` lists it: only these may change a charge. */
export interface ConfirmedPix {
  endToEndId: string;
  txid: string;
  valorCentavos: number;
  horario: string;
  /** Who paid, masked, when the PSP lists it. */
  payer: PixPayer | null;
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
 * Why a charge ended unpaid, as its closure tells the payment service: `failed` when its cob was removed, otherwise
 * `underpaid` when it took PIX that did not pay it, else `expired`.
 */
export function closureReason(removed: boolean, unpaidPixCount: number): PixChargeClosed['reason'] {
  if (removed) return 'failed';
  return unpaidPixCount > 0 ? 'underpaid' : 'expired';
}
