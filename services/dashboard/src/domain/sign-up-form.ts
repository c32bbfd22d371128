import { TEXT_LIMITS } from '@gateway/contracts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password';

export interface SignUpForm {
  companyName: string;
  email: string;
  password: string;
}

/** A form's fields as typed, or what is wrong with each (messages in pt-BR, keyed by field). */
export type FormReading<T> =
  { ok: true; value: T } | { ok: false; errors: Partial<Record<keyof T, string>>; given: Partial<T> };

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/** An e-mail address as stored and compared: trimmed, lower case. */
export function normaliseEmail(value: unknown): string {
  return typeof value === 'string' ? value.trim().toLowerCase() : '';
}

export function isEmail(email: string): boolean {
  return email.length <= TEXT_LIMITS.email && EMAIL.test(email);
}

/** Reads the sign-up form: a company name, an e-mail address and a password within bounds. */
export function readSignUpForm(body: Record<string, unknown>): FormReading<SignUpForm> {
  const companyName = typeof body.company_name === 'string' ? body.company_name.trim() : '';
  const email = normaliseEmail(body.email);
  const password = typeof body.password === 'string' ? body.password : '';
  const errors: Partial<Record<keyof SignUpForm, string>> = {};
  if (companyName.length === 0) errors.companyName = 'Informe o nome da empresa.';
  else if (companyName.length > TEXT_LIMITS.name)
    errors.companyName = `O nome da empresa pode ter até ${TEXT_LIMITS.name} caracteres.`;
  if (!isEmail(email)) errors.email = 'Informe um e-mail válido.';
  if (password.length < PASSWORD_MIN_LENGTH)
    errors.password = `A senha precisa de pelo menos ${PASSWORD_MIN_LENGTH} caracteres.`;
  else if (password.length > PASSWORD_MAX_LENGTH)
    errors.password = `A senha pode ter até ${PASSWORD_MAX_LENGTH} caracteres.`;
  if (Object.keys(errors).length > 0) return { ok: false, errors, given: { companyName, email } };
  return { ok: true, value: { companyName, email, password } };
}
