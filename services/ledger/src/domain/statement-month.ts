/** A statement month `YYYY-MM` (UTC): its first instant and the next month's; its rows are those created in [from, to). */
export function statementMonthBounds(month: string): { from: Date; to: Date } {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return { from: new Date(Date.UTC(year, monthNumber - 1, 1)), to: new Date(Date.UTC(year, monthNumber, 1)) };
}
