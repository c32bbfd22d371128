import {
  DEFAULT_PAYABLE_DAYS_AFTER,
  ceilPercent,
  lateCharges,
  dateOfDay,
  dayNumber,
  partsAddUpTo,
  saoPauloMidnight,
  type AmountParts,
  type DueValue,
  type PixDue,
} from '@gateway/contracts';
import { centavosToPixAmount, pixAmountToCentavos } from './amount';

// A PIX charge with a due date (API Pix `cobv`, docs/adr/0048-due-date-charges-and-subscriptions.md): the rules as API
// Pix states them, the days it can be paid on, and the most each part of a Pix paying it may be on the day it is paid.
// The PSP computes what is due; this bound is ours, computed apart and simpler on purpose, so that a PSP applying a rule
// we did not ask for cannot make us confirm money that is wrong.

/** API Pix `valorPerc`: an amount in reais, or a percentage, with two decimals (200 bps is "2.00"). */
const valorPerc = (value: DueValue): string =>
  centavosToPixAmount('amount' in value ? value.amount : value.percent_bps);

/** The `valor` of a cobv: `original` and one `modalidade` per rule (API Pix `CobVValor`). */
export interface CobvValor {
  original: string;
  multa?: { modalidade: number; valorPerc: string };
  juros?: { modalidade: number; valorPerc: string };
  abatimento?: { modalidade: number; valorPerc: string };
  desconto?: {
    modalidade: number;
    valorPerc?: string;
    descontoDataFixa?: Array<{ data: string; valorPerc: string }>;
  };
}

/**
 * Each rule as its one API Pix `modalidade`: multa and abatimento 1 fixed, 2 percent; juros 1 amount a calendar day,
 * 2/3/4 percent a day/month/year over calendar days, 5 to 8 the same over business days; desconto 1/2 fixed/percent up
 * to dates, 3/4 amount per calendar/business day of anticipation, 5/6 percent per calendar/business day.
 */
export function cobvValorOf(due: PixDue, amountCentavos: number): CobvValor {
  const fixedOrPercent = (value: DueValue) => ({
    modalidade: 'amount' in value ? 1 : 2,
    valorPerc: valorPerc(value),
  });
  const valor: CobvValor = { original: centavosToPixAmount(amountCentavos) };
  if (due.fine) valor.multa = fixedOrPercent(due.fine);
  if (due.interest) {
    const base = 'amount' in due.interest ? 1 : { day: 2, month: 3, year: 4 }[due.interest.per];
    valor.juros = {
      modalidade: base + (due.interest.days === 'business' ? 4 : 0),
      valorPerc: valorPerc(due.interest),
    };
  }
  if (due.reduction) valor.abatimento = fixedOrPercent(due.reduction);
  if (due.discount && 'until' in due.discount) {
    const tiers = due.discount.until;
    valor.desconto = {
      modalidade: 'amount' in tiers[0]! ? 1 : 2,
      descontoDataFixa: tiers.map((tier) => ({ data: tier.date, valorPerc: valorPerc(tier) })),
    };
  } else if (due.discount) {
    const early = due.discount.per_day_early;
    const business = early.days === 'business';
    valor.desconto = {
      modalidade: 'amount' in early ? (business ? 4 : 3) : business ? 6 : 5,
      valorPerc: valorPerc(early),
    };
  }
  return valor;
}

/** The cobv's `calendario`: the due date and the days it stays payable after it. */
export function cobvCalendarioOf(due: PixDue): { dataDeVencimento: string; validadeAposVencimento: number } {
  return {
    dataDeVencimento: due.date,
    validadeAposVencimento: due.payable_days_after ?? DEFAULT_PAYABLE_DAYS_AFTER,
  };
}

// Business days, as banks in Brazil keep them: no weekend, no national bank holiday (the fixed ones, 20 November since
// 2024, and Carnival Monday and Tuesday, Good Friday and Corpus Christi after Easter). Municipal holidays are not known
// here: the payer's bank names its municipality to the PSP, which may move a date further; the bound below allows for it.

const DAY_MS = 86_400_000;
const holidayCache = new Map<number, Set<number>>();

function easterDay(year: number): number {
  // Meeus/Jones/Butcher.
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((b + 8) / 25) + 1) / 3) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

function holidays(year: number): Set<number> {
  let days = holidayCache.get(year);
  if (days) return days;
  const fixed = ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '12-25'];
  if (year >= 2024) fixed.push('11-20');
  const easter = easterDay(year);
  days = new Set([
    ...fixed.map((monthDay) => dayNumber(`${year}-${monthDay}`)!),
    easter - 48,
    easter - 47,
    easter - 2,
    easter + 60,
  ]);
  holidayCache.set(year, days);
  return days;
}

export function isBusinessDay(day: number): boolean {
  const date = new Date(day * DAY_MS);
  const weekday = date.getUTCDay();
  return weekday !== 0 && weekday !== 6 && !holidays(date.getUTCFullYear()).has(day);
}

/** The day itself when a business day, else the next one. */
export function onOrNextBusinessDay(day: number): number {
  let next = day;
  while (!isBusinessDay(next)) next += 1;
  return next;
}

/**
 * The days a due-date charge can be paid on, as API Pix's examples of `validadeAposVencimento` count them: a due date
 * that is no business day moves to the next one, and the last payable day is that moved date plus the days after it,
 * itself moved to a business day. `payableUntil` is what the payment shows; the charge ends after it.
 */
export function payableWindow(due: PixDue): { dueDay: number; lastDay: number; payableUntil: string } {
  const dueDay = onOrNextBusinessDay(dayNumber(due.date)!);
  const lastDay = onOrNextBusinessDay(dueDay + (due.payable_days_after ?? DEFAULT_PAYABLE_DAYS_AFTER));
  return { dueDay, lastDay, payableUntil: dateOfDay(lastDay) };
}

/**
 * The most a municipal holiday may move a date beyond what the national calendar says (the payer's bank's
 * municipality, which we are not told): a due date two days later at most (two holidays in a row, rare as it is).
 */
export const MUNICIPAL_SLACK_DAYS = 2;

/**
 * The last day a Pix may pay the charge (a day number in São Paulo): its last payable day by the national calendar
 * (`payable_until`) and the days a municipal holiday may move it. The charge expires at its end, and a Pix paid after
 * it is late funds, whatever the charge's state: one rule for both (docs/adr/0048, section 1).
 */
export function lastPayingDay(due: PixDue): number {
  return payableWindow(due).lastDay + MUNICIPAL_SLACK_DAYS;
}

/** The instant the charge stops being payable: midnight in America/Sao_Paulo after its last paying day. */
export function endOfPayableWindow(due: PixDue): Date {
  return saoPauloMidnight(lastPayingDay(due) + 1);
}

/**
 * The most each part of a Pix paying the charge may be, paid on `payDay` (a day number in São Paulo); a part that
 * cannot be that day is 0. Simpler than what the PSP computes, and never below it:
 * - the original is exactly the charge's amount;
 * - the fine and interest only after the due date as the national calendar moves it; interest over every calendar day
 *   since then, at the business-day rate (a 21st of a month, a 252nd of a year) when the rule counts business days;
 *   percentages of the original (not of what a reduction leaves), rounded up;
 * - the reduction as the rule states it, rounded up (`reductionRange` says how little it may be);
 * - a discount up to the dates the rule states: a tier dated before the due date up to its own date, the tier on the
 *   due date (which moves with it) and a discount per day of anticipation up to the due date and the days a municipal
 *   holiday may move it; per day of anticipation, the days counted to the due date as the national calendar moves it,
 *   but for a Pix in those days after it (the due date moved there: the days left to it). Always under the original.
 */
export function partBounds(due: PixDue, amountCentavos: number, payDay: number): AmountParts {
  const { dueDay } = payableWindow(due);
  const original = BigInt(amountCentavos);
  const ofValue = (value: DueValue) =>
    'amount' in value ? BigInt(value.amount) : ceilPercent(original, value.percent_bps);
  const late = payDay > dueDay;
  const daysLate = BigInt(Math.max(0, payDay - dueDay));
  const { fine, interest } = late ? lateCharges(due, original, daysLate) : { fine: 0n, interest: 0n };
  const reduction = due.reduction ? ofValue(due.reduction) : 0n;
  let discount = 0n;
  const lastDiscountDay = dueDay + MUNICIPAL_SLACK_DAYS;
  if (due.discount && payDay <= lastDiscountDay) {
    if ('until' in due.discount) {
      const written = dayNumber(due.date)!;
      const open = due.discount.until.filter((tier) => {
        const day = dayNumber(tier.date)!;
        // A tier on the due date itself moves with it (API Pix `CobDataDeVencimento`); any other is on its own date.
        return (day === written ? lastDiscountDay : day) >= payDay;
      });
      discount = open.reduce((most, tier) => (ofValue(tier) > most ? ofValue(tier) : most), 0n);
    } else {
      const early = due.discount.per_day_early;
      const daysEarly = BigInt(payDay <= dueDay ? dueDay - payDay : lastDiscountDay - payDay);
      discount =
        'amount' in early
          ? BigInt(early.amount) * daysEarly
          : ceilPercent(original * daysEarly, early.percent_bps);
    }
  }
  const underOriginal = original - 1n;
  return {
    original: amountCentavos,
    fine: Number(fine),
    interest: Number(interest),
    reduction: Number(reduction > underOriginal ? underOriginal : reduction),
    discount: Number(discount > underOriginal ? underOriginal : discount),
  };
}

/**
 * The reduction a Pix must carry: exactly the rule's (a fixed amount as it is; a percentage of the original rounded
 * either way), none without one. A PSP that grants less overcharges the payer, and we would confirm it.
 */
export function reductionRange(due: PixDue, amountCentavos: number): { least: number; most: number } {
  if (!due.reduction) return { least: 0, most: 0 };
  if ('amount' in due.reduction) return { least: due.reduction.amount, most: due.reduction.amount };
  const exact = BigInt(amountCentavos) * BigInt(due.reduction.percent_bps);
  const floor = Number(exact / 10_000n);
  return { least: floor, most: Number(ceilPercent(BigInt(amountCentavos), due.reduction.percent_bps)) };
}

/**
 * Whether a Pix of `paidCentavos` made of `parts` (null: the PSP listed none) pays the charge on `payDay`: the parts add
 * up to what was paid, the original is the charge's amount, the reduction is the rule's, each other part is within its
 * bound, and a fine or interest comes with a discount only in the days a municipal holiday may have moved the due date
 * to (either the due date moved, and there is a discount, or it did not, and there are the others). Otherwise why not.
 */
export function judgeDuePix(
  due: PixDue,
  amountCentavos: number,
  paidCentavos: number,
  parts: AmountParts | null,
  payDay: number,
): { pays: true } | { pays: false; reason: string } {
  if (parts === null) return { pays: false, reason: 'no componentesValor' };
  if (!partsAddUpTo(parts, paidCentavos))
    return { pays: false, reason: 'componentesValor do not add up to valor' };
  if (parts.original !== amountCentavos) return { pays: false, reason: 'original is not the charge amount' };
  const bounds = partBounds(due, amountCentavos, payDay);
  for (const part of ['fine', 'interest', 'reduction', 'discount'] as const)
    if (parts[part] > bounds[part])
      return { pays: false, reason: `${part} over what the rules allow that day` };
  const reduction = reductionRange(due, amountCentavos);
  if (parts.reduction < Math.min(reduction.least, bounds.reduction))
    return { pays: false, reason: 'reduction under the rule' };
  const { dueDay } = payableWindow(due);
  const mayHaveMoved = payDay > dueDay && payDay <= dueDay + MUNICIPAL_SLACK_DAYS;
  if (parts.discount > 0 && parts.fine + parts.interest > 0 && !mayHaveMoved)
    return { pays: false, reason: 'a fine or interest with a discount' };
  return { pays: true };
}

const COMPONENT_PARTS = {
  original: 'original',
  multa: 'fine',
  juros: 'interest',
  abatimento: 'reduction',
  desconto: 'discount',
} as const;

/**
 * A Pix's `componentesValor` as parts, in centavos: `original` required, the others 0 when absent. Null when it is
 * absent or not as API Pix writes it (a part that is no `{ valor: "0.00" }`, or one a due-date charge has no use for,
 * such as `troco` or `saque`): such a Pix cannot be shown to pay the charge.
 */
export function componentesOf(componentesValor: unknown): AmountParts | null {
  if (typeof componentesValor !== 'object' || componentesValor === null || Array.isArray(componentesValor))
    return null;
  const parts: AmountParts = { original: 0, fine: 0, interest: 0, reduction: 0, discount: 0 };
  const given = componentesValor as Record<string, unknown>;
  if (!('original' in given)) return null;
  for (const [name, component] of Object.entries(given)) {
    // Own keys only: `constructor` or `toString` is no part.
    const part = Object.hasOwn(COMPONENT_PARTS, name)
      ? COMPONENT_PARTS[name as keyof typeof COMPONENT_PARTS]
      : undefined;
    if (!part || typeof component !== 'object' || component === null) return null;
    const valor = (component as { valor?: unknown }).valor;
    if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor)) return null;
    parts[part] = pixAmountToCentavos(valor);
  }
  return parts;
}
