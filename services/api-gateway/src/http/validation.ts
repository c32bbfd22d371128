import Joi from 'joi';
import { AppError, invalidFields, missingFields } from '@gateway/http-errors';

/** Fields whose failures have their own public code instead of INVALID_FIELDS. */
export interface FieldCodes {
  /** Any problem with these is INVALID_AMOUNT. */
  amount?: string[];
  /** Any problem with this is UNSUPPORTED_PAYMENT_METHOD. */
  paymentMethod?: string;
}

const unique = (names: string[]): string[] => [...new Set(names)];

/** `crypto.currency` for nested fields; array items are reported as their array (`events`). */
function fieldName(path: ReadonlyArray<string | number>): string {
  const end = path.findIndex((part) => typeof part === 'number');
  return (end === -1 ? path : path.slice(0, end)).join('.');
}

/**
 * Validates a JSON body against a route's schema and turns every problem into one public error, in this order:
 * MISSING_FIELDS (naming every absent field), UNSUPPORTED_PAYMENT_METHOD, INVALID_AMOUNT, INVALID_FIELDS (naming
 * every bad field). Unknown fields are ignored (and dropped).
 */
export function validateBody<T>(schema: Joi.ObjectSchema<T>, body: unknown, codes: FieldCodes = {}): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('INVALID_FIELDS', 'O corpo da requisição deve ser um objeto JSON.');
  }
  const { value, error } = schema.validate(body, {
    abortEarly: false,
    convert: false,
    allowUnknown: true,
    stripUnknown: true,
  });
  if (!error) return value;
  const missing = error.details.filter((d) => d.type === 'any.required').map((d) => fieldName(d.path));
  if (missing.length > 0) throw missingFields(unique(missing));
  const invalid = unique(error.details.map((d) => fieldName(d.path)));
  if (codes.paymentMethod && invalid.includes(codes.paymentMethod))
    throw new AppError('UNSUPPORTED_PAYMENT_METHOD');
  if (codes.amount?.some((field) => invalid.includes(field))) throw new AppError('INVALID_AMOUNT');
  throw invalidFields(invalid);
}

/** Query strings are text: numbers are converted, and every problem is INVALID_FIELDS. */
export function validateQuery<T>(schema: Joi.ObjectSchema<T>, query: unknown): T {
  const { value, error } = schema.validate(query, { abortEarly: false, convert: true, stripUnknown: true });
  if (error) throw invalidFields(unique(error.details.map((d) => fieldName(d.path))));
  return value;
}

/** `metadata`: the caller's own data as serialized JSON text. */
export const jsonText = Joi.string().custom((text: string, helpers) => {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return helpers.error('any.invalid');
  }
});

/** Integer centavos; the upper bound keeps them exact. */
export const centavosField = Joi.number().integer().max(Number.MAX_SAFE_INTEGER);

/** A path id the contracts accept (`pay_...`, `chk_...`); anything longer cannot exist, so it is NOT_FOUND. */
export function pathId(value: string | undefined): string {
  if (!value || value.length > 200) throw new AppError('NOT_FOUND');
  return value;
}
