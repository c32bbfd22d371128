import type { BalanceTransaction } from '@gateway/contracts';

/**
 * The monthly statement as CSV (GET /v1/statements/{month}, docs/api.md#statements): RFC 4180 (comma separator, CRLF
 * line ends, a field quoted when it holds a comma, a double quote, CR or LF, its double quotes doubled), UTF-8,
 * amounts with a decimal point and two decimals. Every record has the header's nine fields, the two balance rows
 * included (their label and amount, then empty fields), so the file stays one table a spreadsheet or a CSV reader
 * takes as it is.
 */

export const STATEMENT_COLUMNS = [
  'id',
  'created_at',
  'type',
  'source_id',
  'amount_brl',
  'fee_brl',
  'net_brl',
  'available_on',
  'description',
] as const;

const LINE_END = '\r\n';

/**
 * Integer centavos as BRL text with two decimals (`-1234` → `-12.34`), computed on the integer so no amount a
 * statement can hold is ever rounded.
 */
export function centavosText(centavos: number): string {
  const magnitude = Math.abs(centavos);
  const reais = Math.trunc(magnitude / 100);
  const cents = String(magnitude % 100).padStart(2, '0');
  return `${centavos < 0 ? '-' : ''}${reais}.${cents}`;
}

/**
 * Free text a spreadsheet would run as a formula (a leading `=`, `+`, `-`, `@`, tab or CR) gets a leading apostrophe,
 * which spreadsheets show as text (OWASP, CSV Injection: https://owasp.org/www-community/attacks/CSV_Injection).
 */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** One RFC 4180 field: quoted (its quotes doubled) when it holds a comma, a double quote, CR or LF. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const record = (fields: readonly string[]): string => `${fields.map(csvField).join(',')}${LINE_END}`;

export const STATEMENT_HEADER = record(STATEMENT_COLUMNS);

/** A balance transaction's row, in the header's order. */
export function statementRow(transaction: BalanceTransaction): string {
  return record([
    transaction.balance_transaction_id,
    transaction.created_at,
    transaction.type,
    transaction.source_id,
    centavosText(transaction.amount_centavos),
    centavosText(transaction.fee_centavos),
    centavosText(transaction.net_centavos),
    transaction.available_on,
    neutraliseFormula(transaction.description),
  ]);
}

/** `opening_balance_brl` or `closing_balance_brl` and its amount, padded with empty fields to the header's width. */
export function balanceRow(label: 'opening_balance_brl' | 'closing_balance_brl', centavos: number): string {
  const fields: string[] = [label, centavosText(centavos)];
  while (fields.length < STATEMENT_COLUMNS.length) fields.push('');
  return record(fields);
}
