import type { EntityManager } from 'typeorm';
import type { RequestStatus } from '../domain/settlement';
import { PaymentRequestEntity } from './payment-request.entity';

/** The payment's newest transfer request, whatever its status; `forUpdate` locks it until the transaction ends. */
export function latestRequest(
  manager: EntityManager,
  paymentId: string,
  { forUpdate = false } = {},
): Promise<PaymentRequestEntity | null> {
  return manager.findOne(PaymentRequestEntity, {
    where: { paymentId },
    order: { createdAt: 'DESC' },
    ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
}

/** Serialises the opening of one payment's requests until the transaction ends. */
export async function lockRequestsOfPayment(manager: EntityManager, paymentId: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [paymentId]);
}

export async function insertRequest(manager: EntityManager, request: PaymentRequestEntity): Promise<void> {
  await manager.insert(PaymentRequestEntity, request);
}

/** The request of a reference, locked until the transaction ends. */
export function lockRequest(manager: EntityManager, reference: string): Promise<PaymentRequestEntity | null> {
  return manager.findOne(PaymentRequestEntity, { where: { reference }, lock: { mode: 'pessimistic_write' } });
}

/** The payment's open request, locked until the transaction ends. */
export function lockOpenRequestOfPayment(
  manager: EntityManager,
  paymentId: string,
): Promise<PaymentRequestEntity | null> {
  return manager.findOne(PaymentRequestEntity, {
    where: { paymentId, status: 'open' },
    lock: { mode: 'pessimistic_write' },
  });
}

/** The requests of these references, whatever their status, locked (in reference order) until the transaction ends. */
export function lockRequestsByReference(
  manager: EntityManager,
  references: readonly string[],
): Promise<PaymentRequestEntity[]> {
  return manager
    .createQueryBuilder(PaymentRequestEntity, 'request')
    .where('request.reference = ANY(:keys)', { keys: references })
    .orderBy('request.reference')
    .setLock('pessimistic_write')
    .getMany();
}

/**
 * Up to `limit` open requests whose window ended by `dueBy`, oldest window first, locked until the transaction ends;
 * rows another transaction holds are skipped. A request whose window ended after `holdUnreadAfter` is not due while
 * an unread transaction naming its reference landed within its window (or at a time the node did not give): once
 * read, that transaction may pay it.
 */
export function lockDueRequests(
  manager: EntityManager,
  dueBy: Date,
  holdUnreadAfter: Date,
  limit: number,
): Promise<PaymentRequestEntity[]> {
  return manager
    .createQueryBuilder(PaymentRequestEntity, 'request')
    .where('request.status = :open AND request.expiresAt <= :dueBy', { open: 'open', dueBy })
    .andWhere(
      `NOT ("request"."expires_at" > :holdUnreadAfter AND EXISTS (
        SELECT 1 FROM unreadable_transactions unread
         WHERE unread.read_at IS NULL AND "request"."reference" = ANY(unread.named_references)
           AND (unread.block_time IS NULL OR unread.block_time <= "request"."expires_at")))`,
      { holdUnreadAfter },
    )
    .orderBy('request.expiresAt')
    .limit(limit)
    .setLock('pessimistic_write')
    .setOnLocked('skip_locked')
    .getMany();
}

/** What an open request has received; a request no longer open is left as it is. */
export async function saveRequestReceipt(
  manager: EntityManager,
  request: Pick<PaymentRequestEntity, 'reference' | 'receivedBaseUnits' | 'status' | 'settledSignature'>,
): Promise<void> {
  await manager.query(
    `UPDATE payment_requests SET received_base_units = $2, status = $3, settled_signature = $4
     WHERE reference = $1 AND status = 'open'`,
    [request.reference, request.receivedBaseUnits.toString(), request.status, request.settledSignature],
  );
}

/** Moves an open request to a final status; a request no longer open is left as it is. */
export async function closeOpenRequest(
  manager: EntityManager,
  reference: string,
  status: Exclude<RequestStatus, 'open'>,
): Promise<void> {
  await manager.query(`UPDATE payment_requests SET status = $2 WHERE reference = $1 AND status = 'open'`, [
    reference,
    status,
  ]);
}

/** Moves the end of an open request's window. */
export async function moveRequestWindowEnd(
  manager: EntityManager,
  reference: string,
  expiresAt: Date,
): Promise<void> {
  await manager.query(
    `UPDATE payment_requests SET expires_at = $2 WHERE reference = $1 AND status = 'open'`,
    [reference, expiresAt],
  );
}

/** Slack around a block time when looking for the requests whose window could have held it (node clocks drift). */
const WINDOW_SLACK_MS = 5 * 60_000;

/**
 * Up to `limit` requests (any status) whose window held `at`, give or take a few minutes, newest first; with no time,
 * those open now. The requests an unreadable transaction could be paying.
 */
export function requestsAround(
  manager: EntityManager,
  at: Date | null,
  limit: number,
): Promise<PaymentRequestEntity[]> {
  const query = manager.createQueryBuilder(PaymentRequestEntity, 'request');
  if (at === null) query.where("request.status = 'open'");
  else
    query
      .where('request.created_at <= :latest', { latest: new Date(at.getTime() + WINDOW_SLACK_MS) })
      .andWhere('request.expires_at >= :earliest', { earliest: new Date(at.getTime() - WINDOW_SLACK_MS) });
  return query.orderBy('request.created_at', 'DESC').limit(limit).getMany();
}

/** The references of every open request (its window running, or in its confirmation grace). */
export async function openReferences(manager: EntityManager): Promise<string[]> {
  const rows: { reference: string }[] = await manager.query(
    `SELECT reference FROM payment_requests WHERE status = 'open'`,
  );
  return rows.map((row) => row.reference);
}
