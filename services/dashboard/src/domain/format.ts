/** The time zone a business's dates are shown in unless it has its own. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

const thousands = /\B(?=(\d{3})+(?!\d))/g;

/**
 * An amount in reais (the API's `*_brl` numbers: integer centavos / 100) as a Brazilian reads it: `R$ 1.234,56`,
 * `-R$ 12,00`. Worked in integer centavos, so no binary fraction shows.
 */
export function formatBrl(amountBrl: number): string {
  const centavos = Math.round(amountBrl * 100);
  const sign = centavos < 0 ? '-' : '';
  const absolute = Math.abs(centavos);
  const reais = String(Math.floor(absolute / 100)).replace(thousands, '.');
  return `${sign}R$ ${reais},${String(absolute % 100).padStart(2, '0')}`;
}

/**
 * An amount typed by a person (`1.234,56`, `1234,56`, `12.5`, `R$ 10`) in integer centavos, or null when it is not
 * one. A comma is the decimal separator; a lone dot followed by one or two digits is one too.
 */
export function parseBrlInput(text: string): number | null {
  const cleaned = text.replace(/R\$/i, '').replace(/\s/g, '');
  if (!/^\d{1,3}(\.?\d{3})*(,\d{1,2})?$|^\d+(\.\d{1,2})?$/.test(cleaned)) return null;
  const decimal = cleaned.includes(',')
    ? cleaned.replace(/\./g, '').replace(',', '.')
    : /\.\d{3}$/.test(cleaned)
      ? cleaned.replace(/\./g, '')
      : cleaned;
  const [whole, fraction = ''] = decimal.split('.');
  const centavos = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return Number.isSafeInteger(centavos) ? centavos : null;
}

/** A moment as `29/11/2026 17:33` in `timeZone`. */
export function formatDateTime(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('pt-BR', {
    timeZone,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} ${part('hour')}:${part('minute')}`;
}

/** A calendar day (`YYYY-MM-DD`, as the API gives due dates) as a person in Brazil reads it: `29/11/2026`. */
export const formatDay = (date: string): string => date.split('-').reverse().join('/');

/** Whether `timeZone` is one this runtime knows (an IANA name). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('pt-BR', { timeZone });
    return true;
  } catch {
    return false;
  }
}
