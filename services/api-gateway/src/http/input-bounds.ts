import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { MAX_JSON_DEPTH } from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import { findBoundsViolation, type JsonBoundsViolation } from '../domain/json-bounds';

/** Bodies over this are PAYLOAD_TOO_LARGE (docs/adr/0017-rate-limits-and-input-bounds.md). */
export const BODY_LIMIT = '64kb';
/** A field name safe to repeat in a message; anything else is not echoed back. */
const PRINTABLE_FIELD = /^[\w.-]{1,100}$/;

function nulCharacter(field: string): AppError {
  const where = PRINTABLE_FIELD.test(field) ? `: ${field}` : '';
  return new AppError(
    'INVALID_FIELDS',
    `Campos inválidos${where}. Textos não podem conter o caractere NUL (\\u0000).`,
  );
}

function refusal(violation: JsonBoundsViolation): AppError {
  if (violation.kind === 'too_deep') {
    return new AppError('INVALID_JSON', `O JSON excede ${MAX_JSON_DEPTH} níveis de aninhamento.`);
  }
  return nulCharacter(violation.field);
}

/** body-parser decodes invalid UTF-8 into U+FFFD silently; throwing here makes it `entity.verify.failed` (400). */
const requireUtf8 = (_req: unknown, _res: unknown, raw: Buffer): void => {
  if (!isUtf8(raw)) throw new Error('request body is not valid UTF-8');
};

/**
 * A body in any other format would be skipped by the JSON parser and the request run as if it had none (a text/plain
 * customer would be created empty): a non-empty body must be declared `application/json`.
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    return next(
      new AppError('INVALID_JSON', 'O corpo da requisição deve ser JSON (Content-Type: application/json).'),
    );
  }
  next();
};

/**
 * What docs/adr/0017-rate-limits-and-input-bounds.md asks of every JSON body before anything else reads it: declared as JSON, valid
 * UTF-8, at most 64 KiB (after decompression), an object (INVALID_FIELDS otherwise), nested at most MAX_JSON_DEPTH
 * levels (INVALID_JSON) and no NUL character in any key or string (INVALID_FIELDS). A request without a body gets
 * `{}`.
 */
export function jsonBody(): RequestHandler[] {
  const parse = express.json({ limit: BODY_LIMIT, strict: false, verify: requireUtf8 });
  const checkParsed: RequestHandler = (req, _res, next) => {
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return next(new AppError('INVALID_FIELDS', 'O corpo da requisição deve ser um objeto JSON.'));
    }
    const violation = findBoundsViolation(body, MAX_JSON_DEPTH);
    next(violation ? refusal(violation) : undefined);
  };
  return [requireJsonContentType, parse, checkParsed];
}

/** NUL characters are refused in the query string too (qs nests at most 5 levels, so depth is never the issue). */
export const refuseNulInQuery: RequestHandler = (req, _res, next) => {
  const violation = findBoundsViolation(req.query, MAX_JSON_DEPTH);
  next(violation ? refusal(violation) : undefined);
};
