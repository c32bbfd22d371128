import type { RequestHandler, Response } from 'express';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { authenticateApiKey, type IdentityDeps, type Identity } from '../application/authenticate-api-key';

/** The header that carries the business's API key (docs/api.md#authentication). */
export const API_KEY_HEADER = 'x-api-key';

/** Resolves `x-api-key` to the business it belongs to, leaving the refusal to `requireIdentity` (after the limit). */
export function identify(deps: IdentityDeps): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const presented = req.get(API_KEY_HEADER);
    if (presented) {
      const identity = await authenticateApiKey(deps, presented);
      if (identity) res.locals.identity = identity;
    }
    next();
  });
}

export const requireIdentity: RequestHandler = (_req, res, next) => {
  next(res.locals.identity ? undefined : new AppError('UNAUTHORIZED'));
};

export function identityOf(res: Response): Identity {
  const identity = res.locals.identity as Identity | undefined;
  if (!identity) throw new AppError('UNAUTHORIZED');
  return identity;
}
