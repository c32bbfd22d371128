import Joi from 'joi';
import { MAX_AMOUNT_CENTAVOS } from './common';
import { madeAtFirstUse } from './made-at-first-use';

// A PIX charge with a due date (API Pix `cobv`; docs/adr/0048-due-date-charges-and-subscriptions.md, section 1): its
// rules as `POST /v1/payments` takes them under `pix.due` and as the messages carry them, the same shape, since a request
// states money in integer centavos (docs/api.md) and percentages in basis points (as fee rules do). Each rule maps to
// exactly one API Pix `modalidade` (the PIX adapter's `domain/due-charge.ts`); what API Pix cannot state is refused here.

/** A fixed value (centavos) or a percentage (basis points) of the original amount: one of the two. */
export type DueValue = { amount: number } | { percent_bps: number };
export type DayCount = 'calendar' | 'business';

export interface PixDue {
  /** The due date, `YYYY-MM-DD`, in America/Sao_Paulo (API Pix `calendario.dataDeVencimento`). */
  date: string;
  /** Days it stays payable after the due date (API Pix `validadeAposVencimento`); absent: 30, as API Pix. */
  payable_days_after?: number;
  /** Charged once when paid after the due date (`multa`). */
  fine?: DueValue;
  /** Simple interest for each day late: a fixed amount is per day; a percentage per `per` (`juros`). */
  interest?: ({ amount: number } | { percent_bps: number; per: 'day' | 'month' | 'year' }) & {
    days?: DayCount;
  };
  /** Granted whenever it is paid (`abatimento`). */
  reduction?: DueValue;
  /** For paying early (`desconto`): up to one to three dates, or per day of anticipation. */
  discount?:
    { until: Array<{ date: string } & DueValue> } | { per_day_early: DueValue & { days?: DayCount } };
}

/** API Pix's own default of `validadeAposVencimento`. */
export const DEFAULT_PAYABLE_DAYS_AFTER = 30;
/** The longest payable window after a due date we take, in days (a year; API Pix would take any int32). */
export const MAX_PAYABLE_DAYS_AFTER = 365;
/**
 * How far ahead a due date may be, in years from today (São Paulo): a bill is issued for months ahead, not decades, and a
 * date past it is a mistake (a typo in the year) that the PSP may refuse after the cobv was asked for
 * (docs/adr/0048-due-date-charges-and-subscriptions.md, section 1).
 */
export const MAX_DUE_DATE_YEARS_AHEAD = 5;
/** The last day a `YYYY-MM-DD` can state: no rule set may be payable after it. */
export const LAST_WRITABLE_DAY = Date.UTC(9999, 11, 31) / 86_400_000;
/** A percentage rule, in basis points: more than nothing, at most 100 %. */
const percentBps = Joi.number().integer().min(1).max(10_000);
const fixedAmount = Joi.number().integer().min(1).max(MAX_AMOUNT_CENTAVOS);
const dayCount = Joi.string().valid('calendar', 'business');

/** A calendar date that exists, `YYYY-MM-DD` (2027-02-30 does not). */
export const calendarDate = Joi.string().custom((value: string, helpers) =>
  dayNumber(value) === undefined ? helpers.error('any.invalid') : value,
);

/** One of two shapes, exactly: `alternatives` (xor would be a JSON Schema conditional the SDK's types cannot state). */
const oneOf = (...shapes: Joi.Schema[]) =>
  Joi.alternatives()
    .try(...shapes)
    .match('one');
/** A fixed value or a percentage, with the keys `more` adds to both. */
const dueValue = (more: Joi.PartialSchemaMap = {}) =>
  oneOf(
    Joi.object({ amount: fixedAmount.required(), ...more }),
    Joi.object({ percent_bps: percentBps.required(), ...more }),
  );

export const pixDueSchema = Joi.object<PixDue>({
  date: calendarDate.required(),
  payable_days_after: Joi.number().integer().min(0).max(MAX_PAYABLE_DAYS_AFTER),
  fine: dueValue(),
  // A fixed interest is per day; a percentage says per what.
  interest: oneOf(
    Joi.object({ amount: fixedAmount.required(), days: dayCount }),
    Joi.object({
      percent_bps: percentBps.required(),
      per: Joi.string().valid('day', 'month', 'year').required(),
      days: dayCount,
    }),
  ),
  reduction: dueValue(),
  discount: oneOf(
    Joi.object({
      until: Joi.array()
        .items(dueValue({ date: calendarDate.required() }))
        .min(1)
        .max(3)
        .unique('date')
        .required(),
    }),
    Joi.object({ per_day_early: dueValue({ days: dayCount }).required() }),
  ),
});

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a `YYYY-MM-DD` that exists; undefined otherwise. */
export function dayNumber(date: string): number | undefined {
  const match = ISO_DATE.exec(date);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day)
    return undefined;
  return ms / DAY_MS;
}

/** `YYYY-MM-DD` of a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Due dates are days in this time zone (API Pix's `dataDeVencimento`, and the day a Pix is paid on). */
export const DUE_DATE_TIME_ZONE = 'America/Sao_Paulo';
/** A formatter of São Paulo's wall clock, made at first use: most services load this module and never ask for a day. */
const saoPauloFormat = (locale: string, options: Intl.DateTimeFormatOptions): (() => Intl.DateTimeFormat) =>
  madeAtFirstUse(() => new Intl.DateTimeFormat(locale, { ...options, timeZone: DUE_DATE_TIME_ZONE }));

const saoPauloDate = saoPauloFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' });

/**
 * The day an instant falls on in America/Sao_Paulo, by the time zone's own rules (Intl): the day of due dates. No
 * fixed offset: Brazil kept daylight saving time until 2019 and may again.
 */
export function saoPauloDay(instant: Date): number {
  return dayNumber(saoPauloDate().format(instant))!;
}

/** The instant a day (a day number) begins in America/Sao_Paulo: its midnight, whatever the offset that day. */
export function saoPauloMidnight(day: number): Date {
  // The offset is that of the instant itself; try the usual one and correct it (a day begins once, in any zone).
  let guess = day * DAY_MS + 3 * 3_600_000;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const shown = saoPauloDay(new Date(guess));
    const parts = wallClockMs(new Date(guess));
    const correction = (shown - day) * DAY_MS + parts;
    if (correction === 0) break;
    guess -= correction;
  }
  return new Date(guess);
}

const saoPauloTime = saoPauloFormat('en-GB', {
  hourCycle: 'h23',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Milliseconds since midnight on the wall clock of São Paulo at `instant`. */
function wallClockMs(instant: Date): number {
  const [hours, minutes, seconds] = saoPauloTime().format(instant).split(':').map(Number);
  return ((hours! * 60 + minutes!) * 60 + seconds!) * 1000 + instant.getUTCMilliseconds();
}

/** `amount × bps / 10000`, rounded half up (a percentage rule as it comes to be charged). */
export function percentOfCentavos(amountCentavos: number, bps: number): number {
  return Number((BigInt(amountCentavos) * BigInt(bps) * 2n + 10_000n) / 20_000n);
}

/**
 * What the schema cannot see of a due date's rules, for a charge of `amountCentavos` created on `today` (a day
 * number in São Paulo): the fields API Pix (and so the PSP) would refuse. Empty when the rules can be sent as they are.
 *
 * - the due date not before today, nor more than {@link MAX_DUE_DATE_YEARS_AHEAD} years ahead, and its last payable day
 *   a date `YYYY-MM-DD` can write (not after 9999-12-31);
 * - a discount date not after the due date, all of one kind (all `amount` or all `percent_bps`);
 * - a reduction or a discount under the original amount (a reduction's percentage, rounded, too), and the reduction with
 *   the largest discount (a per-day one paid the day the charge is made) under it as well;
 * - the most the charge can come to (its last payable day, with every day's interest) within what API Pix can write.
 */
export function pixDueProblems(due: PixDue, amountCentavos: number, today: number): string[] {
  const problems = new Set<string>();
  const dueDay = dayNumber(due.date)!;
  if (dueDay < today || dueDay > latestDueDay(today)) problems.add('pix.due.date');
  // Its last payable day (a week more: it may move past holidays) must still be a date `YYYY-MM-DD` can write.
  if (dueDay + (due.payable_days_after ?? DEFAULT_PAYABLE_DAYS_AFTER) + 7 > LAST_WRITABLE_DAY)
    problems.add('pix.due.payable_days_after');
  const under = (value: DueValue) =>
    'amount' in value
      ? value.amount < amountCentavos
      : percentOfCentavos(amountCentavos, value.percent_bps) < amountCentavos;
  if (due.reduction && !under(due.reduction)) problems.add('pix.due.reduction');
  if (due.discount && 'until' in due.discount) {
    const tiers = due.discount.until;
    if (tiers.some((tier) => dayNumber(tier.date)! > dueDay)) problems.add('pix.due.discount.until');
    if (new Set(tiers.map((tier) => 'amount' in tier)).size > 1) problems.add('pix.due.discount.until');
    if (tiers.some((tier) => !under(tier))) problems.add('pix.due.discount.until');
  }
  if (due.discount && 'per_day_early' in due.discount && !under(due.discount.per_day_early))
    problems.add('pix.due.discount.per_day_early');
  // A reduction and the largest discount together must leave something to pay (API Pix has no charge of nothing).
  if (problems.size === 0 && due.discount && due.reduction) {
    const value = (rule: DueValue) =>
      'amount' in rule ? rule.amount : percentOfCentavos(amountCentavos, rule.percent_bps);
    if (
      value(due.reduction) + largestDiscount(due.discount, amountCentavos, dueDay - today) >=
      amountCentavos
    ) {
      problems.add('pix.due.reduction');
      problems.add('until' in due.discount ? 'pix.due.discount.until' : 'pix.due.discount.per_day_early');
    }
  }
  if (
    problems.size === 0 &&
    due.discount &&
    'per_day_early' in due.discount &&
    largestDiscount(due.discount, amountCentavos, dueDay - today) >= amountCentavos
  )
    problems.add('pix.due.discount.per_day_early');
  if (problems.size === 0 && mostDue(due, amountCentavos) > BigInt(MAX_AMOUNT_CENTAVOS))
    problems.add('pix.due');
  return [...problems];
}

/** The last due date a charge created on `today` may have: {@link MAX_DUE_DATE_YEARS_AHEAD} years on (29 Feb: 1 Mar). */
export function latestDueDay(today: number): number {
  const date = new Date(today * DAY_MS);
  return (
    Date.UTC(date.getUTCFullYear() + MAX_DUE_DATE_YEARS_AHEAD, date.getUTCMonth(), date.getUTCDate()) / DAY_MS
  );
}

/**
 * The most any discount can take off (centavos): the largest of its dates, or each day early times the days from today
 * to the due date (paid the day it was made, every one a business day at most).
 */
function largestDiscount(
  discount: NonNullable<PixDue['discount']>,
  amountCentavos: number,
  daysEarly: number,
) {
  const value = (rule: DueValue) =>
    'amount' in rule ? rule.amount : percentOfCentavos(amountCentavos, rule.percent_bps);
  if ('until' in discount) return Math.max(...discount.until.map(value));
  const early = discount.per_day_early;
  const days = Math.max(0, daysEarly);
  return 'amount' in early
    ? early.amount * days
    : Number(ceilPercent(BigInt(amountCentavos) * BigInt(days), early.percent_bps, 1n));
}

/**
 * An upper bound of what the charge can ever ask: the original, the whole fine, and interest for every calendar day of
 * the payable window plus a week (its last day may move past holidays), at the business-day rate when it counts those.
 */
function mostDue(due: PixDue, amountCentavos: number): bigint {
  const original = BigInt(amountCentavos);
  const days = BigInt((due.payable_days_after ?? DEFAULT_PAYABLE_DAYS_AFTER) + 7);
  const { fine, interest } = lateCharges(due, original, days);
  return original + fine + interest;
}

/**
 * The most a charge's fine and interest come to after `daysLate` calendar days (centavos, rounded up): the whole fine,
 * and interest for each of those days, at the business-day rate (21 a month, 252 a year) when the rule counts those.
 */
export function lateCharges(
  due: PixDue,
  original: bigint,
  daysLate: bigint,
): { fine: bigint; interest: bigint } {
  const fine = !due.fine
    ? 0n
    : 'amount' in due.fine
      ? BigInt(due.fine.amount)
      : ceilPercent(original, due.fine.percent_bps);
  if (!due.interest) return { fine, interest: 0n };
  if ('amount' in due.interest) return { fine, interest: BigInt(due.interest.amount) * daysLate };
  const business = due.interest.days === 'business';
  const per =
    due.interest.per === 'day'
      ? 1n
      : due.interest.per === 'month'
        ? business
          ? 21n
          : 30n
        : business
          ? 252n
          : 365n;
  return { fine, interest: ceilPercent(original * daysLate, due.interest.percent_bps, per) };
}

/** `bps` basis points of `amount`, divided by `divisor`, rounded up (centavos). */
export const ceilPercent = (amount: bigint, bps: number, divisor = 1n): bigint =>
  (amount * BigInt(bps) + 10_000n * divisor - 1n) / (10_000n * divisor);
