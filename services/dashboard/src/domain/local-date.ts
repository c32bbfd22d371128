/** A calendar day as a person types it in a date field: `2026-11-29`. */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: Date, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return wall - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The instant a calendar day begins in `timeZone` (`2026-11-29` in America/Sao_Paulo → `2026-11-29T03:00:00.000Z`),
 * `days` later when given; null when the text is not a real day.
 */
export function startOfLocalDay(day: string, timeZone: string, days = 0): string | null {
  const match = DAY.exec(day);
  if (!match) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const midnightUtc = Date.UTC(year, month - 1, date + days);
  const check = new Date(Date.UTC(year, month - 1, date));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== date)
    return null;
  // The zone's offset at that midnight, read again at the instant found (a change of offset that day moves it).
  const first = midnightUtc - offsetAt(new Date(midnightUtc), timeZone);
  return new Date(midnightUtc - offsetAt(new Date(first), timeZone)).toISOString();
}
