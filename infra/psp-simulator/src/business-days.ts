/**
 * Calendar dates (`YYYY-MM-DD`, ISO 8601, as API Pix writes them) as day numbers, and the business days of the
 * payer's bank: every day but Saturdays, Sundays and Brazil's national bank holidays (the fixed national holidays of
 * Lei 662/1949 with their later additions, 20 November since Lei 14.759/2023; Carnival Monday and Tuesday, Good
 * Friday and Corpus Christi, on which banks close, after Easter). Municipal and state holidays are not modelled: API
 * Pix lets the payer's bank name its municipality (`codMun` on the cobv payload), and the simulator answers as for a
 * municipality without holidays of its own.
 */

import { dateOfDay, dayNumber } from '@gateway/contracts';

const DAY_MS = 86_400_000;
const isWeekday = (day: number) => ![0, 6].includes(new Date(day * DAY_MS).getUTCDay());
const yearOfDay = (day: number) => new Date(day * DAY_MS).getUTCFullYear();

/** Day numbers (days since 1970-01-01) and `YYYY-MM-DD`, as the gateway's contracts count them (one calendar). */
export const dayOf = dayNumber;
export const dateOf = dateOfDay;

/**
 * The calendar day an instant falls on in Brasília (UTC−03:00, without daylight saving since 2019): the day a payer
 * in Brazil pays on, which is what due dates are about ("pode ser honrada até esse dia, inclusive, em qualquer horário
 * do dia").
 */
export function brasiliaDay(instant: Date): number {
  return Math.floor((instant.getTime() - 3 * 3_600_000) / DAY_MS);
}

const holidayYears = new Map<number, Set<number>>();

function holidaysOf(year: number): Set<number> {
  let days = holidayYears.get(year);
  if (days) return days;
  const fixed = ['01-01', '04-21', '05-01', '09-07', '10-12', '11-02', '11-15', '12-25'];
  if (year >= 2024) fixed.push('11-20');
  const easter = easterOf(year);
  days = new Set([
    ...fixed.map((monthDay) => dayOf(`${year}-${monthDay}`)!),
    easter - 48, // Carnival Monday
    easter - 47, // Carnival Tuesday
    easter - 2, // Good Friday
    easter + 60, // Corpus Christi
  ]);
  holidayYears.set(year, days);
  return days;
}

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
function easterOf(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

export function isBusinessDay(day: number): boolean {
  return isWeekday(day) && !holidaysOf(yearOfDay(day)).has(day);
}

/** The day itself when it is a business day, else the first business day after it. */
export function onOrNextBusinessDay(day: number): number {
  let next = day;
  while (!isBusinessDay(next)) next += 1;
  return next;
}

/**
 * How many business days there are in [from, to) (zero when `to` is not after `from`): five a whole week, the
 * weekdays of the part week, less the holidays on weekdays in the range, so a due date centuries away costs a
 * holiday list per year rather than a step per day.
 */
export function businessDaysFrom(from: number, to: number): number {
  if (to <= from) return 0;
  const weeks = Math.floor((to - from) / 7);
  let count = weeks * 5;
  for (let day = from + weeks * 7; day < to; day++) if (isWeekday(day)) count += 1;
  for (let year = yearOfDay(from); year <= yearOfDay(to - 1); year++)
    for (const holiday of holidaysOf(year))
      if (holiday >= from && holiday < to && isWeekday(holiday)) count -= 1;
  return count;
}
