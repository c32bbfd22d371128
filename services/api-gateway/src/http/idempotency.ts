import type { RequestHandler, Response } from 'express';
import type { DataSource } from 'typeorm';
import { AppError, asyncHandler, invalidFields } from '@gateway/http-errors';
import type { Logger } from '@gateway/observability';
import { openSecret, sealSecret } from '@gateway/persistence';
import { digestsEqual } from '../domain/api-key';
import { idempotentCommandId, requestHash } from '../domain/request-fingerprint';
import type { Identity } from '../identity/identity-store';

/** Printable ASCII, as the IETF Idempotency-Key draft allows; long enough for UUIDs and merchants' own ids. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const POLL_INTERVAL_MS = 50;
/** An in-progress claim older than this belongs to a gateway that died mid-request: it may be taken over. */
const ABANDONED_CLAIM_SECONDS = 60;

interface StoredAttempt {
  request_hash: Buffer;
  state: 'in_progress' | 'done' | 'retryable';
  response_status: number | null;
  response_sealed: string | null;
}

export interface IdempotencyOptions {
  /** How long a repeat of an in-flight request waits for the first one's answer. */
  waitLimitMs: number;
  /** AES-256-GCM key sealing the stored answers. */
  responseKey: Buffer;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `Idempotency-Key` on a POST: the first request claims the key (INSERT ... ON CONFLICT DO NOTHING), its answer is
 * stored (sealed: it may carry a secret) before it is sent, and a repeat with the same body gets that answer byte for
 * byte; a racing repeat waits for it. A different body is IDEMPOTENCY_CONFLICT. A 5xx answer makes the claim
 * retryable: the same body runs again under the same claim (so with the same downstream command id, applied once),
 * a different body is still a conflict. After 24 h the record expires: the key may be claimed afresh, which is a new
 * claim and so a new command.
 */
export function idempotency(
  dataSource: DataSource,
  logger: Logger,
  options: IdempotencyOptions,
): RequestHandler {
  /** The claim this request holds on the key, or undefined when another request holds it (or it is answered). */
  const claim = async (businessId: string, key: string, hash: Buffer): Promise<string | undefined> => {
    await dataSource.query(
      `DELETE FROM idempotency_keys WHERE business_id = $1 AND key = $2 AND expires_at <= now()`,
      [businessId, key],
    );
    const inserted: Array<{ claim_id: string }> = await dataSource.query(
      `INSERT INTO idempotency_keys (business_id, key, request_hash, state, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + interval '24 hours')
       ON CONFLICT (business_id, key) DO NOTHING
       RETURNING claim_id`,
      [businessId, key, hash],
    );
    if (inserted[0]) return inserted[0].claim_id;
    // A retry after a 5xx, or the takeover of an attempt whose gateway died, continues the same claim.
    // TypeORM answers an UPDATE on PostgreSQL with [rows, affected count].
    const [retaken]: [Array<{ claim_id: string }>, number] = await dataSource.query(
      `UPDATE idempotency_keys SET state = 'in_progress', created_at = now()
        WHERE business_id = $1 AND key = $2 AND request_hash = $3
          AND (state = 'retryable'
               OR (state = 'in_progress' AND created_at < now() - make_interval(secs => $4)))
        RETURNING claim_id`,
      [businessId, key, hash, ABANDONED_CLAIM_SECONDS],
    );
    return retaken[0]?.claim_id;
  };

  const storeAnswer = async (
    businessId: string,
    key: string,
    claimId: string,
    status: number,
    body: string,
  ) => {
    if (status >= 500) {
      await dataSource.query(
        `UPDATE idempotency_keys SET state = 'retryable' WHERE business_id = $1 AND key = $2 AND claim_id = $3`,
        [businessId, key, claimId],
      );
      return;
    }
    await dataSource.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_sealed = $5
        WHERE business_id = $1 AND key = $2 AND claim_id = $3`,
      [businessId, key, claimId, status, sealSecret(body, options.responseKey)],
    );
  };

  /** Stores the answer when it is sent, then sends it; `res.json` ends in `res.send` with the JSON text. */
  const recordAnswer = (res: Response, businessId: string, key: string, claimId: string): void => {
    const send = res.send.bind(res);
    res.send = ((body?: unknown) => {
      res.send = send;
      const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
      storeAnswer(businessId, key, claimId, res.statusCode, text)
        .catch((err: unknown) => logger.error({ err }, 'idempotent answer not stored'))
        .finally(() => send(body));
      return res;
    }) as Response['send'];
  };

  return asyncHandler(async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (!IDEMPOTENCY_KEY.test(key)) throw invalidFields(['Idempotency-Key']);
    const { businessId } = res.locals.identity as Identity;
    const hash = requestHash(req.method, `${req.baseUrl}${req.path}`, req.body);
    const deadline = Date.now() + options.waitLimitMs;
    for (;;) {
      const claimId = await claim(businessId, key, hash);
      if (claimId) {
        res.locals.commandId = idempotentCommandId(businessId, key, hash, claimId);
        recordAnswer(res, businessId, key, claimId);
        return next();
      }
      const rows: StoredAttempt[] = await dataSource.query(
        `SELECT request_hash, state, response_status, response_sealed
           FROM idempotency_keys WHERE business_id = $1 AND key = $2`,
        [businessId, key],
      );
      const stored = rows[0];
      if (stored) {
        if (!digestsEqual(stored.request_hash, hash)) throw new AppError('IDEMPOTENCY_CONFLICT');
        if (stored.state === 'done') {
          res
            .status(stored.response_status ?? 200)
            .type('application/json')
            .set('Idempotent-Replayed', 'true')
            .send(stored.response_sealed ? openSecret(stored.response_sealed, options.responseKey) : '');
          return;
        }
      }
      if (Date.now() >= deadline) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'Uma requisição com esta chave de idempotência ainda está em andamento. Tente novamente.',
        );
      }
      await sleep(POLL_INTERVAL_MS);
    }
  });
}
