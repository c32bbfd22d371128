import { TEXT_LIMITS } from '@gateway/contracts';

/** Control characters (NUL, line breaks, escapes) and format marks (bidi overrides): never part of a person's name. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

/**
 * A customer's name as stored: spaces collapsed and trimmed; null (refused) when it is blank, holds a control or
 * format character, or is longer than a name may be. It becomes the debtor's `nome` of a PIX charge (API Pix allows
 * 200 characters), so what the payer's bank shows is what the merchant typed.
 */
export function normaliseName(text: string): string | null {
  if (UNPRINTABLE.test(text.replace(/[\t\n\r]/g, ' '))) return null;
  const name = text.replace(/\s+/gu, ' ').trim();
  return name === '' || name.length > TEXT_LIMITS.name ? null : name;
}
