import type { EntityManager } from 'typeorm';
import type { IdempotencyKeyEntity } from './idempotency-key.entity';

/** A key's record as a repeat of its request reads it. */
export interface StoredIdempotencyKey {
  request_hash: Buffer;
  state: IdempotencyKeyEntity['state'];
  response_status: number | null;
  response_sealed: string | null;
}

export interface ClaimRequest {
  businessId: string;
  key: string;
  requestHash: Buffer;
  leaseSeconds: number;
}

/**
 * A new claim of the key, leased for `leaseSeconds`: its id, or undefined when the key has a record that has not
 * expired. A record that has expired (24 h after its claim) is replaced by the new claim, in the same statement, as
 * if it had been deleted first: a new claim id, no answer.
 */
export async function insertClaim(manager: EntityManager, claim: ClaimRequest): Promise<string | undefined> {
  const inserted: Array<{ claim_id: string }> = await manager.query(
    `INSERT INTO idempotency_keys AS held (business_id, key, request_hash, state, lease_expires_at, expires_at)
     VALUES ($1, $2, $3, 'in_progress', now() + make_interval(secs => $4), now() + interval '24 hours')
     ON CONFLICT (business_id, key) DO UPDATE
        SET claim_id = gen_random_uuid(), request_hash = EXCLUDED.request_hash, state = EXCLUDED.state,
            response_status = NULL, response_sealed = NULL, lease_expires_at = EXCLUDED.lease_expires_at,
            created_at = now(), expires_at = EXCLUDED.expires_at
      WHERE held.expires_at <= now()
     RETURNING claim_id`,
    [claim.businessId, claim.key, claim.requestHash, claim.leaseSeconds],
  );
  return inserted[0]?.claim_id;
}

/**
 * Takes the existing claim of the same request over, leased anew, when it is retryable or its lease ran out: its id,
 * or undefined when it is held, answered, or of a different request.
 */
export async function retakeClaim(manager: EntityManager, claim: ClaimRequest): Promise<string | undefined> {
  // TypeORM answers an UPDATE on PostgreSQL with [rows, affected count].
  const [retaken]: [Array<{ claim_id: string }>, number] = await manager.query(
    `UPDATE idempotency_keys SET state = 'in_progress', lease_expires_at = now() + make_interval(secs => $4)
      WHERE business_id = $1 AND key = $2 AND request_hash = $3
        AND (state = 'retryable' OR (state = 'in_progress' AND lease_expires_at <= now()))
      RETURNING claim_id`,
    [claim.businessId, claim.key, claim.requestHash, claim.leaseSeconds],
  );
  return retaken[0]?.claim_id;
}

/** Extends the lease of a claim still in progress. */
export async function renewClaimLease(
  manager: EntityManager,
  claim: { businessId: string; key: string; claimId: string; leaseSeconds: number },
): Promise<void> {
  await manager.query(
    `UPDATE idempotency_keys SET lease_expires_at = now() + make_interval(secs => $4)
      WHERE business_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_progress'`,
    [claim.businessId, claim.key, claim.claimId, claim.leaseSeconds],
  );
}

// Both answers below change only the holder's claim, still in progress: a holder that lost its lease never rewrites
// a stored answer.

/** Releases the claim as retryable: the same request may run again under it. */
export async function markClaimRetryable(
  manager: EntityManager,
  claim: { businessId: string; key: string; claimId: string },
): Promise<void> {
  await manager.query(
    `UPDATE idempotency_keys SET state = 'retryable', lease_expires_at = NULL
      WHERE business_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_progress'`,
    [claim.businessId, claim.key, claim.claimId],
  );
}

/** Stores the claim's answer (its body sealed): repeats replay it. */
export async function storeClaimAnswer(
  manager: EntityManager,
  claim: { businessId: string; key: string; claimId: string },
  answer: { status: number; sealedBody: string },
): Promise<void> {
  await manager.query(
    `UPDATE idempotency_keys
        SET state = 'done', lease_expires_at = NULL, response_status = $4, response_sealed = $5
      WHERE business_id = $1 AND key = $2 AND claim_id = $3 AND state = 'in_progress'`,
    [claim.businessId, claim.key, claim.claimId, answer.status, answer.sealedBody],
  );
}

export async function findIdempotencyKey(
  manager: EntityManager,
  businessId: string,
  key: string,
): Promise<StoredIdempotencyKey | undefined> {
  const rows: StoredIdempotencyKey[] = await manager.query(
    `SELECT request_hash, state, response_status, response_sealed
       FROM idempotency_keys WHERE business_id = $1 AND key = $2`,
    [businessId, key],
  );
  return rows[0];
}

/** Deletes at most `batchSize` expired records; resolves how many. */
export async function purgeExpiredIdempotencyKeys(
  manager: EntityManager,
  batchSize: number,
): Promise<number> {
  // TypeORM answers a DELETE on PostgreSQL with [rows, affected count].
  const [, deleted]: [unknown[], number] = await manager.query(
    `DELETE FROM idempotency_keys
      WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)`,
    [batchSize],
  );
  return deleted;
}
