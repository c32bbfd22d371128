import Joi from 'joi';
import {
  MAX_AMOUNT_CENTAVOS,
  MIN_AMOUNT_CENTAVOS,
  amountCentavos,
  boundedText,
  hasPublicIdShape,
  isJsonText,
  pageLimit,
} from '@gateway/contracts';
import { AppError, invalidFields, missingFields } from '@gateway/http-errors';
import { formatBrl } from './checkout-page/format-brl';

/** Fields whose failures have their own public code instead of INVALID_FIELDS. */
export interface FieldCodes {
  /** Any problem with these is INVALID_AMOUNT. */
  amount?: string[];
  /** Any problem with this is UNSUPPORTED_PAYMENT_METHOD. */
  paymentMethod?: string;
}

/** Written when first needed: formatBrl reads ICU's locale data, which then stays resident (ADR 0051). */
const amountBounds = (): string =>
  `O valor deve ser um número inteiro de centavos entre ${MIN_AMOUNT_CENTAVOS} (${formatBrl(MIN_AMOUNT_CENTAVOS)})` +
  ` e ${MAX_AMOUNT_CENTAVOS} (${formatBrl(MAX_AMOUNT_CENTAVOS)}).`;

const unique = (names: string[]): string[] => [...new Set(names)];

/** `crypto.currency` for nested fields; array items are reported as their array (`events`). */
function fieldName(path: ReadonlyArray<string | number>): string {
  const end = path.findIndex((part) => typeof part === 'number');
  return (end === -1 ? path : path.slice(0, end)).join('.');
}

/**
 * Validates a JSON body (an object: `jsonBody` refuses anything else) against a route's schema and turns every
 * problem into one public error, in this order: MISSING_FIELDS (naming every absent field), UNSUPPORTED_PAYMENT_METHOD,
 * INVALID_AMOUNT, INVALID_FIELDS (naming every bad field). Unknown fields are ignored (and dropped).
 */
export function validateBody<T>(schema: Joi.ObjectSchema<T>, body: unknown, codes: FieldCodes = {}): T {
  const { value, error } = schema.validate(body, {
    abortEarly: false,
    convert: false,
    allowUnknown: true,
    stripUnknown: true,
  });
  if (!error) return value;
  const missing = error.details.filter((d) => d.type === 'any.required').map((d) => fieldName(d.path));
  if (missing.length > 0) throw missingFields(unique(missing));
  // `.or(...)`: none of the fields of which at least one is required.
  const noneOf = error.details.find((d) => d.type === 'object.missing');
  if (noneOf) {
    const peers = (noneOf.context?.peers as string[] | undefined) ?? [];
    throw new AppError('MISSING_FIELDS', `Informe ao menos um dos campos: ${peers.join(', ')}.`);
  }
  const invalid = unique(error.details.map((d) => fieldName(d.path)));
  if (codes.paymentMethod && invalid.includes(codes.paymentMethod))
    throw new AppError('UNSUPPORTED_PAYMENT_METHOD');
  if (codes.amount?.some((field) => invalid.includes(field)))
    throw new AppError('INVALID_AMOUNT', amountBounds());
  throw invalidFields(invalid);
}

/**
 * The query of a list route (docs/api.md#lists-and-pagination): `limit` 1-100 (10 when absent), a cursor of the listed
 * kind. Built once per route at load (a schema per request would cost a build on every read).
 */
export function pageQuery(cursor: Joi.StringSchema): Joi.ObjectSchema {
  return Joi.object({ limit: pageLimit, starting_after: cursor });
}

/** Query strings are text: numbers are converted, and every problem is INVALID_FIELDS. */
export function validateQuery<T>(schema: Joi.ObjectSchema<T>, query: unknown): T {
  const { value, error } = schema.validate(query, { abortEarly: false, convert: true, stripUnknown: true });
  if (error) throw invalidFields(unique(error.details.map((d) => fieldName(d.path))));
  return value;
}

/** What a payment or a product may charge, in integer centavos (INVALID_AMOUNT outside; see FieldCodes.amount). */
export const amountField = amountCentavos;

/** `metadata`: the caller's own data as serialized JSON text. */
export const jsonText = boundedText('metadata')
  .custom((text: string, helpers) => (isJsonText(text) ? text : helpers.error('any.invalid')))
  .description("Serialized JSON text with the caller's own data.")
  // What JSON Schema calls a string whose content is JSON (the document states it; joi checks it above).
  .meta({ contentMediaType: 'application/json' });

/** Integer centavos that are not a charge (a fee); the upper bound keeps them exact. */
export const centavosField = Joi.number().integer().max(Number.MAX_SAFE_INTEGER);

/** Prefixes of the public ids that appear in paths. */
export type PathIdPrefix =
  | 'pay'
  | 'chk'
  | 'wh'
  | 'cust'
  | 'ref'
  | 'dsp'
  | 'sub'
  | 'evt'
  | 'biz'
  | 'dlv'
  | 'sess'
  | 'fund'
  | 'po'
  | 'rec'
  | 'prod';

/** A path id of the resource's shape (`pay_` + 24-64 url-safe characters); anything else cannot exist: NOT_FOUND. */
export function pathId(prefix: PathIdPrefix, value: string | undefined): string {
  if (!hasPublicIdShape(prefix, value)) throw new AppError('NOT_FOUND');
  return value;
}
