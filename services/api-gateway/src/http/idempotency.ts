import type { RequestHandler, Response } from 'express';
import { AppError, asyncHandler, invalidFields } from '@gateway/http-errors';
import type { Identity } from '../application/authenticate-api-key';
import {
  claimIdempotencyKey,
  type HeldClaim,
  type IdempotencyDeps,
} from '../application/claim-idempotency-key';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Marks an answer given again for a repeated key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Printable ASCII, as the IETF Idempotency-Key draft allows; long enough for UUIDs and merchants' own ids. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Stores the answer when it is sent; `res.json` ends in `res.send` with the JSON text. A 5xx is sent at once and
 * the claim released after (failing that, its lease runs out): with a dependency down the client hears so at once.
 * Any other answer is stored before it is sent, so a repeat replays it instead of running again.
 */
function recordAnswer(res: Response, claim: HeldClaim): void {
  // An answer cut off after its headers (the error middleware destroys the socket) never reaches `send`.
  res.once('close', () => {
    if (res.headersSent) claim.stopRenewing();
  });
  const send = res.send.bind(res);
  res.send = ((body?: unknown) => {
    res.send = send;
    const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
    const stored = claim.storeAnswer(res.statusCode, text);
    if (res.statusCode >= 500) send(body);
    else void stored.finally(() => send(body));
    return res;
  }) as Response['send'];
}

/**
 * `Idempotency-Key` on a POST (see claimIdempotencyKey): the first request runs under a claim of the key and its
 * answer is recorded; a repeat gets the recorded answer with `Idempotent-Replayed: true`; a different body is
 * IDEMPOTENCY_CONFLICT; a repeat whose first request is still running after the wait limit is SERVICE_UNAVAILABLE.
 */
export function idempotency(deps: IdempotencyDeps): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next();
    if (!IDEMPOTENCY_KEY.test(key)) throw invalidFields([IDEMPOTENCY_KEY_HEADER]);
    const { businessId } = res.locals.identity as Identity;
    const outcome = await claimIdempotencyKey(deps, {
      businessId,
      key,
      method: req.method,
      path: `${req.baseUrl}${req.path}`,
      body: req.body,
    });
    switch (outcome.kind) {
      case 'claimed':
        res.locals.commandId = outcome.claim.commandId;
        recordAnswer(res, outcome.claim);
        return next();
      case 'answered':
        res.status(outcome.status).type('application/json').set(REPLAYED_HEADER, 'true').send(outcome.body);
        return;
      case 'conflict':
        throw new AppError('IDEMPOTENCY_CONFLICT');
      case 'in_progress':
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'Uma requisição com esta chave de idempotência ainda está em andamento. Tente novamente.',
        );
    }
  });
}
