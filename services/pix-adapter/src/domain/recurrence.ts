import { createHash } from 'node:crypto';
import {
  dateOfDay,
  dayNumber,
  type RecurrenceOutcome,
  type SubscriptionCanceller,
  type SubscriptionInterval,
  type SubscriptionRetryPolicy,
} from '@gateway/contracts';
import { generateTxid } from './txid';

/** API Pix `periodicidade` of each interval. */
export const PERIODICIDADE: Readonly<Record<SubscriptionInterval, string>> = {
  weekly: 'SEMANAL',
  monthly: 'MENSAL',
  quarterly: 'TRIMESTRAL',
  semiannual: 'SEMESTRAL',
  yearly: 'ANUAL',
};

/** API Pix `politicaRetentativa` of each retry policy. */
export const POLITICA_RETENTATIVA: Readonly<
  Record<SubscriptionRetryPolicy, 'NAO_PERMITE' | 'PERMITE_3R_7D'>
> = {
  none: 'NAO_PERMITE',
  three_in_seven_days: 'PERMITE_3R_7D',
};

/** API Pix `vinculo.objeto` and `vinculo.contrato` hold at most 35 characters. */
export const VINCULO_MAX = 35;

/**
 * The recurrence's `vinculo.contrato`: the subscription's id when it fits API Pix's 35 characters, else a digest of it
 * as long (our ids may be up to 68): the same subscription always names the same contract, which is how a lost
 * answer's recurrence is found again at the PSP.
 */
export function contractOf(subscriptionId: string): string {
  if (subscriptionId.length <= VINCULO_MAX) return subscriptionId;
  return `sub_${createHash('sha256')
    .update(subscriptionId)
    .digest('base64url')
    .slice(0, VINCULO_MAX - 4)}`;
}

/**
 * The txid of a subscription's cycle (API Pix `[a-zA-Z0-9]{26,35}`), derived from the pair (subscription, cycle): a
 * retried open asks the PSP for the same `cobr`, whatever its message id.
 */
export function txidOfCycle(subscriptionId: string, cycle: number): string {
  let round = 0;
  return generateTxid(() =>
    createHash('sha256')
      .update(`cobr:${subscriptionId}:${cycle}:${(round += 1)}`)
      .digest(),
  );
}

/** The outcome a recurrence's status reports (null: CRIADA, nothing happened yet). */
export function outcomeOfRecStatus(status: string): RecurrenceOutcome | null {
  switch (status) {
    case 'APROVADA':
      return 'authorized';
    case 'REJEITADA':
      return 'rejected';
    case 'CANCELADA':
      return 'cancelled';
    case 'EXPIRADA':
      return 'expired';
    default:
      return null;
  }
}

/** Who cancelled, by API Pix `encerramento.cancelamento.solicitante`. */
export function cancellerOf(solicitante: string | undefined): SubscriptionCanceller {
  if (solicitante === 'USUARIO_RECEBEDOR') return 'merchant';
  if (solicitante === 'USUARIO_PAGADOR' || solicitante === 'PSP_PAGADOR') return 'payer';
  return 'psp';
}

/** API Pix reason codes are short (`AP13`, `SLDB`, `AM02`); anything else is not passed on. */
export function reasonCode(code: string | undefined): string | null {
  return code !== undefined && /^[A-Z0-9]{1,8}$/.test(code) ? code : null;
}

/** API Pix 2.9.0 `PERMITE_3R_7D`: retries end by the seventh day after the due date. */
export const RETRY_WINDOW_DAYS = 7;

/**
 * How many of the three retries PERMITE_3R_7D allows were used: the attempts the receiver asked for
 * (`POST /cobr/{txid}/retentativa/{data}`, which API Pix lists as `NTAG`). The scheduled attempt (`AGND`) is none, and
 * neither is a `RIFL` attempt: the payer's bank makes those on its own after a failed settlement, nobody asked for
 * them, and the receiver's three retries are the ones it requests.
 */
export function retriesUsed(tentativas: ReadonlyArray<{ tipo: string }>): number {
  return tentativas.filter((tentativa) => tentativa.tipo === 'NTAG').length;
}

/**
 * The day of a cycle's next retry under PERMITE_3R_7D (API Pix 2.9.0, `POST /cobr/{txid}/retentativa/{data}`: a
 * future day by the PSP, at most three retries, none past the seventh day after the due date): the later of the day
 * after the failed attempt and the day after the PSP's today (a failure learnt late, by the poll or after an outage,
 * still gets the retries left), or null when no retry is left.
 */
export function nextRetryDay(
  policy: SubscriptionRetryPolicy,
  dueDate: string,
  attemptDay: string,
  pspToday: string,
  retriesSoFar: number,
): string | null {
  if (policy !== 'three_in_seven_days' || retriesSoFar >= 3) return null;
  const due = dayNumber(dueDate);
  const attempt = dayNumber(attemptDay);
  const today = dayNumber(pspToday);
  if (due === undefined || attempt === undefined || today === undefined) return null;
  const next = Math.max(attempt, today) + 1;
  return next <= due + RETRY_WINDOW_DAYS ? dateOfDay(next) : null;
}

/**
 * Whether nothing can debit a cycle any more by the PSP's today, whatever its status says: the retry window API Pix
 * allows (to the seventh day after the due date) has passed. Before then a cycle still `ATIVA` may be debited (a
 * retry, or an attempt of the payer's bank): only the PSP's own final status ends it.
 */
export function cycleWindowOver(dueDate: string, pspToday: string): boolean {
  const due = dayNumber(dueDate);
  const today = dayNumber(pspToday);
  return due !== undefined && today !== undefined && today > due + RETRY_WINDOW_DAYS;
}

/**
 * Where the sandbox moves a recurrence's clock next on its way from `today` to `to`, given the due dates of its open
 * cycles: one day at a time from a cycle's due date to the day after its retry window (each day's failure is followed,
 * and its retry asked for, before the next day comes, as a PSP's real days would allow), else straight to the next due
 * date or to `to`.
 */
export function nextClockStop(today: string, to: string, dueDates: readonly string[]): string {
  const next = dayNumber(today)! + 1;
  let stop = dayNumber(to)!;
  for (const dueDate of dueDates) {
    const due = dayNumber(dueDate);
    if (due === undefined) continue;
    if (next >= due && next <= due + RETRY_WINDOW_DAYS + 1) stop = Math.min(stop, next);
    else if (due > next) stop = Math.min(stop, due);
  }
  return dateOfDay(Math.max(stop, dayNumber(today)!));
}

/** API Pix's moves of a recurrence's status (anything else a PSP says is not applied). */
export function isRecMove(from: string, to: string): boolean {
  if (from === 'CRIADA') return ['APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'].includes(to);
  if (from === 'APROVADA') return to === 'CANCELADA' || to === 'EXPIRADA';
  return false;
}
