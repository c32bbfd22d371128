import { isValidCNPJ, isValidCPF } from '@brazilian-utils/brazilian-utils';

const CPF_LENGTH = 11;
const CNPJ_LENGTH = 14;
const SEPARATORS = /[\s./-]/g;
const DOCUMENT_CHARACTERS = /^[0-9A-Z]+$/;

/**
 * A CPF or CNPJ without punctuation (`52998224725`, `11222333000181`) when its check digits are right, else null.
 * CNPJs may be alphanumeric (Receita Federal, from July 2026), so letters are kept, upper-cased.
 */
export function normaliseDocumentNumber(text: string): string | null {
  const compact = text.replace(SEPARATORS, '').toUpperCase();
  if (!DOCUMENT_CHARACTERS.test(compact)) {
    return null;
  }
  if (compact.length === CPF_LENGTH) {
    return isValidCPF(compact) ? compact : null;
  }
  if (compact.length === CNPJ_LENGTH) {
    return isValidCNPJ(compact) ? compact : null;
  }
  return null;
}
