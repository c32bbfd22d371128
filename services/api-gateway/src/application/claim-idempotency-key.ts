import type { DataSource } from 'typeorm';
import type { Logger } from '@gateway/observability';
import { openSecret, sealSecret } from '@gateway/persistence';
import { digestsEqual } from '../domain/api-key';
import { idempotentCommandId, requestHash } from '../domain/request-fingerprint';
import {
  findIdempotencyKey,
  insertClaim,
  markClaimRetryable,
  renewClaimLease,
  retakeClaim,
  storeClaimAnswer,
} from '../persistence';

export interface IdempotencyOptions {
  /** How long a repeat of an in-flight request waits for the first one's answer. */
  waitLimitMs: number;
  /** AES-256-GCM key sealing the stored answers. */
  responseKey: Buffer;
}

export interface IdempotencyDeps extends IdempotencyOptions {
  dataSource: DataSource;
  logger: Logger;
}

/** A request sent with an idempotency key: the key, and what must match for a repeat to be the same request. */
export interface IdempotentRequest {
  businessId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

/** The claim a request holds on its key while it runs. */
export interface HeldClaim {
  /** The downstream command id of this claim: every run under it sends the same id. */
  commandId: string;
  /** Stops renewing the lease (an answer cut off before it was sent): it runs out, and a retry takes the claim. */
  stopRenewing(): void;
  /**
   * Stops renewing and stores the answer: a 5xx makes the claim retryable, anything else is replayed to repeats.
   * Never rejects: an answer not stored is logged, and its claim's lease runs out.
   */
  storeAnswer(status: number, body: string): Promise<void>;
}

export type IdempotencyClaim =
  | { kind: 'claimed'; claim: HeldClaim }
  | { kind: 'answered'; status: number; body: string }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

const POLL_INTERVAL_MS = 50;
/**
 * A claim is a lease: the request holding it renews it every LEASE_RENEWAL_MS while it runs and releases it when it
 * answers. A lease left to run out belongs to a gateway that died (or froze) mid-request: a retry takes it over
 * within LEASE_SECONDS, under the same claim and so with the same downstream command id.
 */
const LEASE_SECONDS = 5;
const LEASE_RENEWAL_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The first request with a key claims it (one INSERT, which replaces a record that has expired) under a lease it
 * renews while it runs, and its answer is stored (sealed: it may carry a secret) before it is sent; a repeat with the
 * same body gets that answer byte for byte; a racing repeat waits for it (`in_progress` once `waitLimitMs` passed),
 * or takes the claim over once its lease ran out (the holder died). A different body is a conflict. A 5xx answer
 * makes the claim retryable: the same body runs again under the same claim (so with the same downstream command id,
 * applied once), a different body is still a conflict. After 24 h the record expires: the key may be claimed afresh,
 * which is a new claim and so a new command.
 */
export async function claimIdempotencyKey(
  deps: IdempotencyDeps,
  request: IdempotentRequest,
): Promise<IdempotencyClaim> {
  const { dataSource } = deps;
  const { businessId, key } = request;
  const hash = requestHash(request.method, request.path, request.body);
  const deadline = Date.now() + deps.waitLimitMs;
  const claimRequest = { businessId, key, requestHash: hash, leaseSeconds: LEASE_SECONDS };
  for (;;) {
    const claimId =
      (await insertClaim(dataSource.manager, claimRequest)) ??
      // A retry after a 5xx, or the takeover of an attempt whose lease ran out, continues the same claim.
      (await retakeClaim(dataSource.manager, claimRequest));
    if (claimId) {
      return {
        kind: 'claimed',
        claim: holdClaim(
          deps,
          { businessId, key, claimId },
          idempotentCommandId(businessId, key, hash, claimId),
        ),
      };
    }
    const stored = await findIdempotencyKey(dataSource.manager, businessId, key);
    if (stored) {
      if (!digestsEqual(stored.request_hash, hash)) return { kind: 'conflict' };
      if (stored.state === 'done') {
        return {
          kind: 'answered',
          status: stored.response_status ?? 200,
          body: stored.response_sealed ? openSecret(stored.response_sealed, deps.responseKey) : '',
        };
      }
    }
    if (Date.now() >= deadline) return { kind: 'in_progress' };
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Renews the claim's lease until the request answers. A client that hung up does not end it: the command is still
 * under way, and a retry must wait for its answer rather than send it again.
 */
function holdClaim(
  deps: IdempotencyDeps,
  claim: { businessId: string; key: string; claimId: string },
  commandId: string,
): HeldClaim {
  const { dataSource, logger } = deps;
  const timer = setInterval(() => {
    renewClaimLease(dataSource.manager, { ...claim, leaseSeconds: LEASE_SECONDS })
      // Renewal failing means the database is away: the lease runs out and a retry may take the claim over.
      .catch((err: unknown) => logger.warn({ err: String(err) }, 'idempotency lease not renewed'));
  }, LEASE_RENEWAL_MS);
  const stopRenewing = (): void => clearInterval(timer);
  const store = async (status: number, body: string): Promise<void> => {
    if (status >= 500) await markClaimRetryable(dataSource.manager, claim);
    else {
      const sealedBody = sealSecret(body, deps.responseKey);
      await storeClaimAnswer(dataSource.manager, claim, { status, sealedBody });
    }
  };
  return {
    commandId,
    stopRenewing,
    storeAnswer: (status, body) => {
      stopRenewing();
      return store(status, body).catch((err: unknown) =>
        logger.warn({ err: String(err) }, 'idempotent answer not stored'),
      );
    },
  };
}
