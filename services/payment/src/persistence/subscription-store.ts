import type { EntityManager } from 'typeorm';
import type { SubscriptionStatus } from '@gateway/contracts';
import { newestCreatedPage, type Page, type PageRequest } from '@gateway/persistence';
import { OPEN_STATUSES } from '../domain/payment-status';
import { CYCLE_SEND_DAYS_BEFORE_DUE, DUE_DATE_TIME_ZONE } from '@gateway/contracts';
import { PaymentEntity } from './payment.entity';
import { SubscriptionEntity } from './subscription.entity';

/** Inserts a new subscription, never over one: null (and nothing written) when one with its id exists already. */
export async function insertSubscription(
  manager: EntityManager,
  subscription: SubscriptionEntity,
): Promise<SubscriptionEntity | null> {
  const entity = manager.create(SubscriptionEntity, subscription);
  const inserted = await manager
    .createQueryBuilder()
    .insert()
    .into(SubscriptionEntity)
    .values(entity)
    .orIgnore()
    .returning('id')
    .execute();
  return inserted.raw.length === 0 ? null : entity;
}

export function findSubscription(
  manager: EntityManager,
  subscriptionId: string,
  businessId?: string,
): Promise<SubscriptionEntity | null> {
  return manager.findOneBy(
    SubscriptionEntity,
    businessId ? { id: subscriptionId, businessId } : { id: subscriptionId },
  );
}

/** The subscription (of `businessId`, when given), locked until the transaction ends: every change of it takes this. */
export function lockSubscription(
  manager: EntityManager,
  subscriptionId: string,
  businessId?: string,
): Promise<SubscriptionEntity | null> {
  return manager.findOne(SubscriptionEntity, {
    where: businessId ? { id: subscriptionId, businessId } : { id: subscriptionId },
    lock: { mode: 'pessimistic_write' },
  });
}

/** Writes a (locked) subscription's changeable columns as they are on `subscription`. */
export async function saveSubscription(
  manager: EntityManager,
  subscription: SubscriptionEntity,
): Promise<void> {
  subscription.updatedAt = new Date();
  await manager.update(
    SubscriptionEntity,
    { id: subscription.id },
    {
      status: subscription.status,
      nextCycle: subscription.nextCycle,
      nextDueDate: subscription.nextDueDate,
      nextCycleAmountCentavos: subscription.nextCycleAmountCentavos,
      clockDate: subscription.clockDate,
      failNextCycle: subscription.failNextCycle,
      payerAnswerAskedAt: subscription.payerAnswerAskedAt,
      cycleOpenFailures: subscription.cycleOpenFailures,
      cycleOpenRetryAt: subscription.cycleOpenRetryAt,
      cancelledBy: subscription.cancelledBy,
      cancellationReason: subscription.cancellationReason,
      pspReasonCode: subscription.pspReasonCode,
      endedAt: subscription.endedAt,
      updatedAt: subscription.updatedAt,
    },
  );
}

/** What a list of subscriptions is narrowed to. */
export interface SubscriptionFilters {
  status?: SubscriptionStatus;
  customerId?: string;
}

/** A page of a business's subscriptions, newest first; undefined when `startingAfter` is not one of its own. */
export function listSubscriptionsOf(
  manager: EntityManager,
  businessId: string,
  filters: SubscriptionFilters,
  page: PageRequest,
): Promise<Page<SubscriptionEntity> | undefined> {
  return newestCreatedPage(manager, SubscriptionEntity, { business_id: businessId }, page, (list) => {
    if (filters.status) list.andWhere('listed.status = :status', { status: filters.status });
    if (filters.customerId) list.andWhere('listed.customer_id = :customer', { customer: filters.customerId });
  });
}

/**
 * Up to `limit` running subscriptions with something due on their today (São Paulo's day where they keep no clock of
 * their own): an active one whose next cycle's send day has come (and that is not backing off a failed open), or one
 * past its `end_date` with no cycle left (to expire). PostgreSQL reckons São Paulo's day by its own time zone rules, so
 * an idle scheduler makes no time zone formatter of its own (which would page in ICU's data, about 6.5 MiB: ADR 0051);
 * a subscription it finds is then worked on by the app's clock, and one not due by that clock yet waits for the next
 * pass.
 */
export async function subscriptionsWithWorkDue(manager: EntityManager, limit: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT id FROM subscriptions
      WHERE status = 'active'
        AND ((next_due_date IS NOT NULL AND next_due_date - $2::int <= COALESCE(clock_date, (now() AT TIME ZONE $1::text)::date)
              AND (cycle_open_retry_at IS NULL OR cycle_open_retry_at <= now()))
          OR (next_due_date IS NULL AND end_date < COALESCE(clock_date, (now() AT TIME ZONE $1::text)::date)))
      ORDER BY next_due_date NULLS FIRST LIMIT $3`,
    [DUE_DATE_TIME_ZONE, CYCLE_SEND_DAYS_BEFORE_DUE, limit],
  );
  return rows.map((row) => row.id);
}

/**
 * Up to `limit` journey-3 subscriptions still `pending_authorization` whose QR code (the authorization and its first
 * payment) expired: never to be authorized now.
 */
export async function subscriptionsWithLapsedAuthorization(
  manager: EntityManager,
  limit: number,
): Promise<string[]> {
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT id FROM subscriptions
      WHERE status = 'pending_authorization' AND journey = 'qr_with_first_payment'
        AND (authorization_instructions->>'expires_at')::timestamptz < now()
      ORDER BY created_at LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.id);
}

/** The first failed open waits this long before the next; each failure after doubles it, up to the cap. */
export const CYCLE_OPEN_BACKOFF = { firstMs: 60_000, maxMs: 6 * 3600_000 } as const;

/**
 * Cycle `cycle`'s open failed (a refusal that may pass): the scheduler leaves the subscription alone for a delay that
 * grows with each failure in a row (1 min, 2, 4... up to 6 h). Nothing when it moved past that cycle meanwhile.
 */
export async function backOffCycleOpen(
  manager: EntityManager,
  subscriptionId: string,
  cycle: number,
): Promise<void> {
  await manager.query(
    `UPDATE subscriptions
        SET cycle_open_failures = cycle_open_failures + 1,
            cycle_open_retry_at = now() + LEAST($3::bigint, $4::bigint * power(2, LEAST(cycle_open_failures, 30))::bigint)
              * interval '1 millisecond'
      WHERE id = $1 AND next_cycle = $2 AND status = 'active'`,
    [subscriptionId, cycle, CYCLE_OPEN_BACKOFF.maxMs, CYCLE_OPEN_BACKOFF.firstMs],
  );
}

/** A cycle asked of the PIX adapter and not yet recorded as a payment (its `cobr` may be at the PSP already). */
export interface CycleOpening {
  cycle: number;
  amountCentavos: number;
}

/**
 * Cycle `cycle` is about to be asked of the PIX adapter for `amountCentavos` (committed before the ask, so a `cobr` the
 * PSP may hold is never forgotten): false, and nothing written, when the subscription no longer waits for that cycle,
 * or another cycle's ask is still pending (it is settled first). The subscription's row is locked while it is marked,
 * so a pass recording the cycle as never sent (under that lock) either sees the mark or ran before it and moved on.
 */
export async function markCycleOpening(
  manager: EntityManager,
  subscriptionId: string,
  cycle: number,
  amountCentavos: number,
): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `INSERT INTO subscription_cycle_openings (subscription_id, cycle, amount_centavos, asked_at)
     SELECT id, $2, $3, now() FROM subscriptions WHERE id = $1 AND status = 'active' AND next_cycle = $2 FOR UPDATE
     ON CONFLICT (subscription_id) DO UPDATE SET amount_centavos = $3, asked_at = now()
       WHERE subscription_cycle_openings.cycle = $2
     RETURNING subscription_id`,
    [subscriptionId, cycle, amountCentavos],
  );
  return rows.length > 0;
}

/** The cycle of the subscription asked of the adapter and not yet recorded, if any. */
export async function findCycleOpening(
  manager: EntityManager,
  subscriptionId: string,
): Promise<CycleOpening | null> {
  const [row] = (await manager.query(
    `SELECT cycle, amount_centavos::text AS amount FROM subscription_cycle_openings WHERE subscription_id = $1`,
    [subscriptionId],
  )) as Array<{ cycle: number; amount: string }>;
  return row ? { cycle: row.cycle, amountCentavos: Number(row.amount) } : null;
}

/** Cycle `cycle`'s ask is settled (recorded, or the adapter opened none): it is no longer pending. */
export async function endCycleOpening(
  manager: EntityManager,
  subscriptionId: string,
  cycle: number,
): Promise<void> {
  await manager.query(`DELETE FROM subscription_cycle_openings WHERE subscription_id = $1 AND cycle = $2`, [
    subscriptionId,
    cycle,
  ]);
}

/** Cycle `cycle`'s ask could not be settled now (no answer): it waits as long again before the next try. */
export async function postponeCycleOpening(
  manager: EntityManager,
  subscriptionId: string,
  cycle: number,
): Promise<void> {
  await manager.query(
    `UPDATE subscription_cycle_openings SET asked_at = now() WHERE subscription_id = $1 AND cycle = $2`,
    [subscriptionId, cycle],
  );
}

/**
 * Up to `limit` subscriptions with a cycle asked of the adapter more than `afterMs` ago and never recorded, that no pass
 * will open any more (the subscription ended, or moved past that cycle): their cycle is to be settled with the adapter.
 */
export async function subscriptionsWithCycleOpeningLeft(
  manager: EntityManager,
  afterMs: number,
  limit: number,
): Promise<string[]> {
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT s.id FROM subscription_cycle_openings o JOIN subscriptions s ON s.id = o.subscription_id
      WHERE o.asked_at < now() - $1::int * interval '1 millisecond'
        AND (s.status <> 'active' OR s.next_cycle IS DISTINCT FROM o.cycle)
      ORDER BY o.asked_at LIMIT $2`,
    [afterMs, limit],
  );
  return rows.map((row) => row.id);
}

/** Sandbox: the payer's bank was asked to answer the authorization now (its answer arrives as an event). */
export async function markPayerAnswerAsked(manager: EntityManager, subscriptionId: string): Promise<void> {
  await manager.query(
    `UPDATE subscriptions SET payer_answer_asked_at = now() WHERE id = $1 AND status = 'pending_authorization'`,
    [subscriptionId],
  );
}

/**
 * Sandbox: asks the subscription's clock to move to `to` (a later target kept, never an earlier one); `to` its today
 * asks for what is due on it.
 */
export async function setClockTarget(
  manager: EntityManager,
  subscriptionId: string,
  businessId: string,
  to: string,
): Promise<void> {
  await manager.query(
    `UPDATE subscriptions SET clock_target = GREATEST(COALESCE(clock_target, $3::date), $3::date), updated_at = now()
      WHERE id = $1 AND business_id = $2 AND clock_date IS NOT NULL AND clock_date <= $3::date`,
    [subscriptionId, businessId, to],
  );
}

/**
 * Takes (or renews) the lease on moving a subscription's clock to its target for `leaseMs`, for the runner `owner` (a
 * token of its own): true when it holds it now (no one else did, another's lapsed, or `renew` and it is still
 * `owner`'s: a runner whose lease another took over never takes it back), false otherwise or when there is nothing left
 * to move.
 */
export async function claimClockMove(
  manager: EntityManager,
  subscriptionId: string,
  leaseMs: number,
  owner: string,
  renew: boolean,
): Promise<boolean> {
  const [, count] = (await manager.query(
    `UPDATE subscriptions
        SET clock_lease_until = now() + ($2::int * interval '1 millisecond'), clock_lease_owner = $3
      WHERE id = $1 AND clock_target >= clock_date
        AND (CASE WHEN $4::boolean THEN clock_lease_owner = $3
                  ELSE clock_lease_until IS NULL OR clock_lease_until < now() END)`,
    [subscriptionId, leaseMs, owner, renew],
  )) as [unknown, number];
  return count === 1;
}

/**
 * The runner `owner` lets the move go (nothing when another took it over): the target is cleared once the clock reached
 * it; otherwise it stays for the next runner (a move held up at a send day goes on later).
 */
export async function endClockMove(
  manager: EntityManager,
  subscriptionId: string,
  owner: string,
): Promise<void> {
  // updated_at moves too: a move that waits goes behind the others the scheduler takes over (they are taken oldest first).
  await manager.query(
    `UPDATE subscriptions SET clock_lease_until = NULL, clock_lease_owner = NULL, updated_at = now(),
        clock_target = CASE WHEN clock_target <= clock_date THEN NULL ELSE clock_target END
      WHERE id = $1 AND clock_lease_owner = $2`,
    [subscriptionId, owner],
  );
}

/**
 * Up to `limit` sandbox subscriptions whose clock has a move asked for that no runner holds, and, while active, whose
 * cycle open is not backing off (the move waits for it, as the scheduler's own opens do; an ended one has no cycle to
 * open).
 */
export async function subscriptionsWithClockToMove(manager: EntityManager, limit: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT id FROM subscriptions
      WHERE clock_target >= clock_date AND (clock_lease_until IS NULL OR clock_lease_until < now())
        AND (status <> 'active' OR cycle_open_retry_at IS NULL OR cycle_open_retry_at <= now())
      ORDER BY updated_at LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.id);
}

/** The subscription's cycles still open (`processing`), oldest first, locked until the transaction ends. */
export function lockOpenCycles(manager: EntityManager, subscriptionId: string): Promise<PaymentEntity[]> {
  return manager
    .createQueryBuilder(PaymentEntity, 'cycle')
    .where('cycle.subscription_id = :subscriptionId', { subscriptionId })
    .andWhere('cycle.status IN (:...open)', { open: [...OPEN_STATUSES] })
    .orderBy('cycle.cycle', 'ASC')
    .setLock('pessimistic_write')
    .getMany();
}
