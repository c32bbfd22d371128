import { parseBrlInput } from './format';

/** A statement's month as the API names it, `YYYY-MM` (UTC), from January 2000 on. */
export function isStatementMonth(text: string): boolean {
  const match = /^(\d{4})-(\d{2})$/.exec(text);
  return !!match && Number(match[1]) >= 2000 && Number(match[2]) >= 1 && Number(match[2]) <= 12;
}

/** The month of `now` (UTC), `YYYY-MM`: the statement the page offers first. */
export function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** `2026-11` as `novembro de 2026`. */
export function monthLabel(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number);
  return new Intl.DateTimeFormat('pt-BR', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(year!, monthNumber! - 1, 1)),
  );
}

/** The payout form's amount: blank is everything available (the API's default), else integer centavos; null: invalid. */
export function readPayoutAmount(text: string): { amount?: number } | null {
  if (text.trim() === '') return {};
  const centavos = parseBrlInput(text);
  return centavos === null || centavos <= 0 ? null : { amount: centavos };
}

export const pixKeyTypes = ['cpf', 'cnpj', 'email', 'phone', 'evp'] as const;
export type PixKeyType = (typeof pixKeyTypes)[number];

export const pixKeyTypeLabels: Record<PixKeyType, string> = {
  cpf: 'CPF',
  cnpj: 'CNPJ',
  email: 'E-mail',
  phone: 'Telefone',
  evp: 'Chave aleatória',
};

export interface PayoutAccountForm {
  pix_key: string;
  pix_key_type: PixKeyType;
  holder_document: string;
}

/**
 * The payout account form as the operator API takes it: a CPF, CNPJ or document typed with its dots, dashes and
 * slashes is sent as its digits. Only the shape is checked here: the gateway checks each key against its type and
 * answers what is wrong.
 */
export function readPayoutAccountForm(
  body: Record<string, unknown>,
): { ok: true; value: PayoutAccountForm } | { ok: false; error: string } {
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');
  const type = text('pix_key_type');
  if (!(pixKeyTypes as readonly string[]).includes(type))
    return { ok: false, error: 'Escolha o tipo da chave PIX.' };
  const pixKeyType = type as PixKeyType;
  const digits = (value: string) => value.replace(/[.\-/\s]/g, '');
  const rawKey = text('pix_key');
  const pixKey =
    pixKeyType === 'cpf' || pixKeyType === 'cnpj'
      ? digits(rawKey)
      : pixKeyType === 'phone'
        ? rawKey.replace(/[\s()-]/g, '')
        : rawKey;
  if (!pixKey || pixKey.length > 200) return { ok: false, error: 'Informe a chave PIX.' };
  const holderDocument = digits(text('holder_document'));
  if (!holderDocument || holderDocument.length > 20)
    return { ok: false, error: 'Informe o CPF ou CNPJ do titular da chave.' };
  return { ok: true, value: { pix_key: pixKey, pix_key_type: pixKeyType, holder_document: holderDocument } };
}

/** A key as the dashboard keeps and shows it: its last four characters only (`•••• 0195`). */
export function pixKeyHint(key: string): string {
  return `•••• ${key.slice(-4)}`;
}
