import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '@gateway/http-errors';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time (as digests, so lengths leak nothing either). */
export function requireAdmin(adminToken: string): RequestHandler {
  const expected = sha256(adminToken);
  return (req, _res, next) => {
    const match = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
    const presented = match ? sha256(match[1]!) : undefined;
    if (presented && timingSafeEqual(presented, expected)) return next();
    // The catalog's UNAUTHORIZED text speaks of an API key; an operator presents the admin token.
    next(new AppError('UNAUTHORIZED', 'Token de operador ausente ou inválido.'));
  };
}
