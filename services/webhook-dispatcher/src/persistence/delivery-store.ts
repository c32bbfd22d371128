import type { EntityManager } from 'typeorm';
import type { TraceHeaders } from '@gateway/observability';
import type { DeliveryStatus } from './delivery.entity';

/** A delivery claimed for an attempt, with what sending it needs from its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  /** The trace of the event the delivery is for: every attempt is a span in it. */
  trace_context: TraceHeaders | null;
  url: string;
  secret_sealed: string;
  /** The secret a rotation replaced, only while its overlap lasts. */
  previous_secret_sealed: string | null;
}

export interface ClaimRequest {
  /** Written as the lease owner. */
  workerId: string;
  leaseMs: number;
  /** Webhooks none of whose deliveries is claimed this time. */
  skipWebhooks: string[];
  /** Deliveries of one webhook claimed at most. */
  maxPerWebhook: number;
  /** Deliveries claimed at most. */
  limit: number;
  /** Deliveries the caller holds already: never claimed again. */
  held: string[];
}

/** One attempt as it is stored. */
export interface StoredAttempt {
  deliveryId: string;
  attemptedAt: Date;
  attemptNumber: number;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
}

/** A delivery as the deliveries list shows it, with its attempts, oldest first. */
export interface ListedDelivery {
  id: string;
  seq: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  next_attempt_at: Date | null;
  created_at: Date;
  attempts: ListedAttempt[];
}

export interface ListedAttempt {
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

/** Only rows nobody holds: never leased, or whose lease ran out (its worker crashed or hung). */
const CLAIMABLE = `d.status = 'pending' AND d.next_attempt_at <= now()
  AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())`;
const WEBHOOK_LIVE = `w.status = 'active' AND w.deleted_at IS NULL`;

/**
 * The claim's first step, a read: the claimable deliveries of live webhooks, ranked per webhook, the few within the
 * window (`maxPerWebhook`) only, with the webhooks to skip and the deliveries already held taken out; the longest due
 * of those, twice the batch (a replica claiming beside this one may take some before the lease). The deliveries
 * are read and ranked on their own, once; only the rows within the window have their webhook looked up, each by its
 * key (a subquery, never turned into a join the planner could start from the webhooks). A webhook's deliveries are all
 * live or all not, so ranking before the liveness check ranks the same rows as after it.
 */
const DUE_WITHIN_WINDOW = `
  SELECT ranked.id FROM (
    SELECT d.id, d.webhook_id, d.next_attempt_at, d.seq,
           row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.seq) AS rank
      FROM deliveries d
     WHERE ${CLAIMABLE} AND d.webhook_id <> ALL($1::text[]) AND d.id <> ALL($2::text[])
  ) ranked
  WHERE ranked.rank <= $3 AND (SELECT ${WEBHOOK_LIVE} FROM webhooks w WHERE w.id = ranked.webhook_id)
  ORDER BY ranked.next_attempt_at, ranked.seq
  LIMIT $4`;

/**
 * The claim's second step: of those deliveries, the ones still claimable on their latest row version, the longest due
 * first, leased (`FOR UPDATE SKIP LOCKED`); a webhook no longer live since the read leases none (its rows are locked
 * and dropped, so that batch comes back short: the liveness check stays out of the locking subquery, where the planner
 * could start from the webhooks again).
 */
const LEASE_CLAIMABLE = `
  UPDATE deliveries d
     SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond', updated_at = now()
    FROM webhooks w,
         (SELECT d.id FROM deliveries d
           WHERE d.id = ANY($3::text[]) AND ${CLAIMABLE}
           ORDER BY d.next_attempt_at
           LIMIT $4
           FOR UPDATE SKIP LOCKED) claimable
   WHERE d.id = claimable.id AND w.id = d.webhook_id AND ${WEBHOOK_LIVE}
  RETURNING d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempt_count, d.trace_context, w.url,
            w.secret_sealed,
            CASE WHEN w.previous_secret_until > now() THEN w.previous_secret_sealed END AS previous_secret_sealed`;

/**
 * Leases due deliveries of live webhooks, the longest due first (FOR UPDATE SKIP LOCKED, so replicas never claim the
 * same row). The window keeps one busy webhook from filling a whole batch: at most `maxPerWebhook` of a webhook's due
 * deliveries, its longest due, are candidates.
 *
 * Two statements, no transaction between them: the read (DUE_WITHIN_WINDOW) and the lease (LEASE_CLAIMABLE), which
 * re-checks CLAIMABLE on each row's latest version, so a row another replica claimed since the read is skipped, never
 * claimed twice. Whatever the statistics say (a table that has just grown, a server whose autovacuum is off), no plan
 * of either statement scans the deliveries once per webhook or per candidate
 * (docs/adr/0053-delivery-claim-reads-due-index-once.md). In one statement the planner had gone
 * from each live webhook to the due index, reading all of it once per webhook (43 ms for a claim that found nothing,
 * with 163 webhooks and 10,200 entries of delivered rows not yet vacuumed).
 */
export async function claimDueDeliveries(
  manager: EntityManager,
  request: ClaimRequest,
): Promise<ClaimedDelivery[]> {
  const candidates = (await manager.query(DUE_WITHIN_WINDOW, [
    request.skipWebhooks,
    request.held,
    request.maxPerWebhook,
    request.limit * 2,
  ])) as Array<{ id: string }>;
  if (candidates.length === 0) return [];
  const [claimed] = (await manager.query(LEASE_CLAIMABLE, [
    request.workerId,
    request.leaseMs,
    candidates.map((candidate) => candidate.id),
    request.limit,
  ])) as [ClaimedDelivery[], number];
  return claimed;
}

/**
 * Restarts the lease of a delivery the worker still holds, still pending, of a live webhook; false when it is not
 * (cancelled meanwhile: its webhook deleted or disabled).
 */
export async function renewDeliveryLease(
  manager: EntityManager,
  deliveryId: string,
  workerId: string,
  leaseMs: number,
): Promise<boolean> {
  const [rows] = (await manager.query(
    `UPDATE deliveries d SET lease_expires_at = now() + $3 * interval '1 millisecond'
       FROM webhooks w
      WHERE d.id = $1 AND d.lease_owner = $2 AND d.status = 'pending' AND w.id = d.webhook_id AND ${WEBHOOK_LIVE}
      RETURNING d.id`,
    [deliveryId, workerId, leaseMs],
  )) as [unknown[], number];
  return rows.length > 0;
}

export async function releaseDeliveryLease(
  manager: EntityManager,
  deliveryId: string,
  workerId: string,
): Promise<void> {
  await manager.query(
    `UPDATE deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`,
    [deliveryId, workerId],
  );
}

/**
 * Stores the attempt and moves its delivery to `status` in one statement (one round trip, atomic), due again in
 * `delayMs` (null: not due). The move is conditional on the worker's lease: if the delivery was cancelled meanwhile,
 * the cancellation stands (the attempt is still on record).
 */
export async function storeAttempt(
  manager: EntityManager,
  attempt: StoredAttempt,
  workerId: string,
  status: 'pending' | 'delivered' | 'dead',
  delayMs: number | null,
): Promise<void> {
  await manager.query(
    `WITH attempt AS (
       INSERT INTO delivery_attempts
         (delivery_id, attempted_at, worker_id, status_code, latency_ms, response_body, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7))
     UPDATE deliveries
        SET status = $8, attempt_count = $9, lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
            next_attempt_at = CASE WHEN $10::bigint IS NULL THEN NULL
                                   ELSE clock_timestamp() + $10::bigint * interval '1 millisecond' END
      WHERE id = $1 AND lease_owner = $3 AND status = 'pending'`,
    [
      attempt.deliveryId,
      attempt.attemptedAt,
      workerId,
      attempt.statusCode,
      attempt.latencyMs,
      attempt.responseBody,
      attempt.error,
      status,
      attempt.attemptNumber,
      delayMs,
    ],
  );
}

/** Cancels the webhook's pending deliveries: none of them is sent (the worker re-checks right before sending). */
export async function cancelPendingDeliveries(manager: EntityManager, webhookId: string): Promise<void> {
  await manager.query(
    `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, updated_at = now()
      WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId],
  );
}

/**
 * Makes the webhook's delivery pending and due now, unless it was cancelled; undefined when there is no such
 * delivery. An attempt in flight keeps its lease: the delivery becomes due right after it, never alongside it.
 */
export async function makeDeliveryDueNow(
  manager: EntityManager,
  webhookId: string,
  deliveryId: string,
): Promise<{ id: string; status: DeliveryStatus } | undefined> {
  const [rows] = (await manager.query(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
      WHERE id = $1 AND webhook_id = $2 AND status <> 'cancelled'
      RETURNING id, status`,
    [deliveryId, webhookId],
  )) as [Array<{ id: string; status: DeliveryStatus }>, number];
  return rows[0];
}

/**
 * The webhook's deliveries, the last created first, at most `limit`, from before position `beforeSeq` (null: from
 * the last), with their attempts; `hasMore` when older ones remain.
 */
export async function listDeliveriesOf(
  manager: EntityManager,
  webhookId: string,
  page: { beforeSeq: string | null; limit: number },
): Promise<{ rows: ListedDelivery[]; hasMore: boolean }> {
  const rows: Array<Omit<ListedDelivery, 'attempts'>> = await manager.query(
    `SELECT id, seq, event_id, event_type, status, next_attempt_at, created_at
       FROM deliveries
      WHERE webhook_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
      ORDER BY seq DESC
      LIMIT $3`,
    [webhookId, page.beforeSeq, page.limit + 1],
  );
  const listed = rows.slice(0, page.limit);
  const attempts: Array<ListedAttempt & { delivery_id: string }> = await manager.query(
    `SELECT delivery_id, attempted_at, status_code, latency_ms, error, response_body
       FROM delivery_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY id`,
    [listed.map((row) => row.id)],
  );
  const attemptsByDelivery = new Map<string, ListedAttempt[]>();
  for (const { delivery_id: deliveryId, ...attempt } of attempts) {
    const list = attemptsByDelivery.get(deliveryId) ?? [];
    list.push(attempt);
    attemptsByDelivery.set(deliveryId, list);
  }
  return {
    rows: listed.map((row) => ({ ...row, attempts: attemptsByDelivery.get(row.id) ?? [] })),
    hasMore: rows.length > page.limit,
  };
}
