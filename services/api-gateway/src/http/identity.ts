import type { RequestHandler, Response } from 'express';
import type { ApiKeyScope } from '@gateway/contracts';
import { AppError, asyncHandler } from '@gateway/http-errors';
import { authenticateApiKey, type IdentityDeps, type Identity } from '../application/authenticate-api-key';
import { scopesAllow } from '../domain/api-key';

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

/**
 * Refuses a key without the scope the operation declares, FORBIDDEN naming it: in front of the operation, so a refused
 * request is neither checked, nor sent on, nor recorded under its idempotency key. An operation of the API that
 * declares no scope is a mistake in the table: it throws when mounted.
 */
export function requireScope(op: { operationId: string; scope?: ApiKeyScope }): RequestHandler[] {
  const { scope } = op;
  if (scope === undefined) throw new Error(`${op.operationId} declares no scope`);
  return [
    (_req, res, next) => {
      next(
        scopesAllow(identityOf(res).scopes, scope)
          ? undefined
          : new AppError(
              'FORBIDDEN',
              `Esta chave de API não tem o escopo ${scope}, que esta operação exige.`,
            ),
      );
    },
  ];
}
