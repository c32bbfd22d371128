import type { RequestHandler, Response } from 'express';
import type { DataSource } from 'typeorm';
import { AppError, asyncHandler, invalidFields } from '@gateway/http-errors';
import type { Logger } from '@gateway/observability';
import { openSecret, sealSecret } from '@gateway/persistence';
import { digestsEqual } from '../domain/api-key';
import { idempotentCommandId, requestHash } from '../domain/request-fingerprint';
import type { Identity } from '../identity/identity-store';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Marks an answer given again for a repeated key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Printable ASCII, as the IETF Idempotency-Key draft allows; long enough for UUIDs and merchants' own ids. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const POLL_INTERVAL_MS = 50;
/**
 * A claim is a lease: the request holding it renews it every LEASE_RENEWAL_MS while it runs and releases it when it
 * answers. A lease left to run out belongs to a gateway that died (or froze) mid-request: a retry takes it over
 * within LEASE_SECONDS, under the same claim and so with the same downstream command id.
 */
const LEASE_SECONDS = 5;
const LEASE_RENEWAL_MS = 1000;

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
 * `Idempotency-Key` on a POST: the first request claims the key (INSERT ... ON CONFLICT DO NOTHING) under a lease it
 * renews while it runs, its answer is stored (sealed: it may carry a secret) before it is sent, and a repeat with the
 * same body gets that answer byte for byte; a racing repeat waits for it, or takes the claim over once its lease ran
 * out (the holder died). A different body is IDEMPOTENCY_CONFLICT. A 5xx answer makes the claim
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
      `INSERT INTO idempotency_keys (business_id, key, request_hash, state, lease_expires_at, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + make_interval(secs => $4), now() + interval '24 hours')
       ON CONFLICT (business_id, key) DO NOTHING
       RETURNING claim_id`,
      [businessId, key, hash, LEASE_SECONDS],
    );
    if (inserted[0]) return inserted[0].claim_id;
    // A retry after a 5xx, or the takeover of an attempt whose lease ran out, continues the same claim.
    // TypeORM answers an UPDATE on PostgreSQL with [rows, affected count].
    const [retaken]: [Array<{ claim_id: string }>, number] = await dataSource.query(
      `UPDATE idempotency_keys SET state = 'in_progress', lease_expires_at = now() + make_interval(secs => $4)
        WHERE business_id = $1 AND key = $2 AND request_hash = $3
          AND (state = 'retryable' OR (state = 'in_progress' AND lease_expires_at <= now()))
        RETURNING claim_id`,
      [businessId, key, hash, LEASE_SECONDS],
    );
    return retaken[0]?.claim_id;
  };

  /**
   * Renews the claim's lease until the request answers (returns the stop). A client that hung up does not end it:
   * the command is still under way, and a retry must wait for its answer rather than send it again.
   */
  const holdLease = (businessId: string, key: string, claimId: string): (() => void) => {
    const timer = setInterval(() => {
      dataSource
        .query(
          `UPDATE idempotency_keys SET lease_expires_at = now() + make_interval(secs => $4)
            WHERE business_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_progress'`,
          [businessId, key, claimId, LEASE_SECONDS],
        )
        // Renewal failing means the database is away: the lease runs out and a retry may take the claim over.
        .catch((err: unknown) => logger.warn({ err: String(err) }, 'idempotency lease not renewed'));
    }, LEASE_RENEWAL_MS);
    return () => clearInterval(timer);
  };

  const storeAnswer = async (
    businessId: string,
    key: string,
    claimId: string,
    status: number,
    body: string,
  ) => {
    // Only the holder's claim, still in progress: a holder that lost its lease never rewrites a stored answer.
    if (status >= 500) {
      await dataSource.query(
        `UPDATE idempotency_keys SET state = 'retryable', lease_expires_at = NULL
          WHERE business_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_progress'`,
        [businessId, key, claimId],
      );
      return;
    }
    await dataSource.query(
      `UPDATE idempotency_keys
          SET state = 'done', lease_expires_at = NULL, response_status = $4, response_sealed = $5
        WHERE business_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_progress'`,
      [businessId, key, claimId, status, sealSecret(body, options.responseKey)],
    );
  };

  /**
   * Stores the answer when it is sent; `res.json` ends in `res.send` with the JSON text. A 5xx is sent at once and
   * the claim released after (failing that, its lease runs out): with a dependency down the client hears so at once.
   * Any other answer is stored before it is sent, so a repeat replays it instead of running again.
   */
  const recordAnswer = (res: Response, businessId: string, key: string, claimId: string): void => {
    const stopRenewing = holdLease(businessId, key, claimId);
    // An answer cut off after its headers (the error middleware destroys the socket) never reaches `send`.
    res.once('close', () => {
      if (res.headersSent) stopRenewing();
    });
    const send = res.send.bind(res);
    res.send = ((body?: unknown) => {
      res.send = send;
      stopRenewing();
      const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
      const stored = storeAnswer(businessId, key, claimId, res.statusCode, text).catch((err: unknown) =>
        logger.warn({ err: String(err) }, 'idempotent answer not stored'),
      );
      if (res.statusCode >= 500) send(body);
      else void stored.finally(() => send(body));
      return res;
    }) as Response['send'];
  };

  return asyncHandler(async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next();
    if (!IDEMPOTENCY_KEY.test(key)) throw invalidFields([IDEMPOTENCY_KEY_HEADER]);
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
            .set(REPLAYED_HEADER, 'true')
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
