import { PAYER_NAME_MAX_LENGTH, type PixPayer } from '@gateway/contracts';

// Who paid a PIX, as a PSP that reports it lists it on the Pix (`pagador: { cpf | cnpj, nome }`, the shape API Pix
// v2.0 had before the BCB dropped it from the standard for privacy; PSPs that still send it keep it). `infoPagador`
// is not the payer: it is the free text the payer typed (at most 140 characters), and it is not kept.
//
// Only what a merchant needs leaves this service: the name, and the document masked here, before anything is stored
// or sent, so no whole CPF reaches a message, a log or another service's database. A value that is not what it should
// be (not an object, a document that is no CPF or CNPJ, a name of control characters) reports nothing rather than
// refusing the Pix: the money counts whatever the PSP says of who sent it.

/** Characters a name never shows: controls (NUL among them), format marks (bidi overrides), lone surrogates, private use. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}]/gu;

/** The payer a Pix lists, masked; null when the PSP reported none. */
export function pixPayerOf(pagador: unknown): PixPayer | null {
  if (typeof pagador !== 'object' || pagador === null || Array.isArray(pagador)) return null;
  const { nome, cpf, cnpj } = pagador as Record<string, unknown>;
  const payer = { name: payerName(nome), document_masked: maskedCpf(cpf) ?? maskedCnpj(cnpj) };
  return payer.name === null && payer.document_masked === null ? null : payer;
}

/**
 * The name as shown: invisible characters gone, spaces collapsed, cut to PAYER_NAME_MAX_LENGTH UTF-16 units (what the
 * contract counts) without splitting a character.
 */
export function payerName(nome: unknown): string | null {
  if (typeof nome !== 'string') return null;
  const shown = nome.replace(INVISIBLE, '').replace(/\s+/gu, ' ').trim();
  if (shown === '') return null;
  let cut = '';
  for (const character of shown) {
    if (cut.length + character.length > PAYER_NAME_MAX_LENGTH) break;
    cut += character;
  }
  return cut.trimEnd();
}

/** Digits (and a CNPJ's letters) without the usual punctuation of a formatted document. */
const bare = (document: unknown): string | null =>
  typeof document === 'string' && document.length <= 32
    ? document.replace(/[.\-/\s]/g, '').toUpperCase()
    : null;

/** A CPF keeps its middle six digits: `***.456.789-**` (as Brazilian public bodies publish one). */
export function maskedCpf(cpf: unknown): string | null {
  const digits = bare(cpf);
  if (digits === null || !/^\d{11}$/.test(digits)) return null;
  return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`;
}

/**
 * A CNPJ (numeric, or the alphanumeric form of 2026: twelve of 0-9/A-Z and two check digits) hides its first two
 * characters and its check digits, as a CPF does: `**.345.678/0001-**`. A company's CNPJ is public, but a sole
 * trader's may be tied to a person, so it is never shown whole either.
 */
export function maskedCnpj(cnpj: unknown): string | null {
  const characters = bare(cnpj);
  if (characters === null || !/^[0-9A-Z]{12}\d{2}$/.test(characters)) return null;
  return `**.${characters.slice(2, 5)}.${characters.slice(5, 8)}/${characters.slice(8, 12)}-**`;
}
