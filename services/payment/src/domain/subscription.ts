import { createHash } from 'node:crypto';
import {
  CYCLE_SEND_DAYS_BEFORE_DUE,
  CYCLE_SEND_WINDOW_DAYS,
  dateOfDay,
  dayNumber,
  type AuthorizationJourney,
  type PixInstructions,
  type PixRecurrenceChanged,
  type SubscriptionCancellationReason,
  type SubscriptionCanceller,
  type SubscriptionInterval,
  type SubscriptionRecord,
  type SubscriptionStatus,
} from '@gateway/contracts';

// Subscriptions' pure rules (docs/adr/0048-due-date-charges-and-subscriptions.md, sections 2 to 4): cycle dates, the
// ids derived from a cycle, and what an authorization outcome does to a subscription.

/** A subscription as this service stores it (the entity has this shape). */
export interface StoredSubscription {
  id: string;
  businessId: string;
  customerId: string;
  status: SubscriptionStatus;
  amountCentavos: number | null;
  minimumAmountCentavos: number | null;
  interval: SubscriptionInterval;
  startDate: string;
  endDate: string | null;
  description: string | null;
  retryPolicy: SubscriptionRecord['retry_policy'];
  journey: AuthorizationJourney;
  metadata: string | null;
  authorization: PixInstructions | null;
  firstPaymentId: string | null;
  nextCycle: number | null;
  nextDueDate: string | null;
  nextCycleAmountCentavos: number | null;
  clockDate: string | null;
  cancelledBy: SubscriptionCanceller | null;
  cancellationReason: SubscriptionCancellationReason | null;
  endedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const MONTHS: Record<SubscriptionInterval, number> = {
  weekly: 0,
  monthly: 1,
  quarterly: 3,
  semiannual: 6,
  yearly: 12,
};

/**
 * Cycle `cycle`'s due date: counted from `start_date` (cycle 1), never from the cycle before, so a day the month lacks
 * is clamped to the month's last day without drifting (Jan 31 -> Feb 28 -> Mar 31). Weekly: 7 days apart.
 */
export function cycleDueDate(startDate: string, interval: SubscriptionInterval, cycle: number): string {
  const start = dayNumber(startDate);
  if (start === undefined) throw new Error(`not a date: ${startDate}`);
  if (interval === 'weekly') return dateOfDay(start + 7 * (cycle - 1));
  const [year, month, day] = startDate.split('-').map(Number) as [number, number, number];
  const months = month - 1 + MONTHS[interval] * (cycle - 1);
  const targetYear = year + Math.floor(months / 12);
  const targetMonth = months % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  return new Date(Date.UTC(targetYear, targetMonth, Math.min(day, lastDay))).toISOString().slice(0, 10);
}

/** The day a cycle due on `dueDate` is opened (its `cobr` sent): inside BCB's window of 10 to 2 days before. */
export function cycleSendDay(dueDate: string): string {
  return dateOfDay(dayNumber(dueDate)! - CYCLE_SEND_DAYS_BEFORE_DUE);
}

/**
 * The last day a cycle due on `dueDate` can still be sent: BCB wants its `cobr` at the PSP at least
 * `CYCLE_SEND_WINDOW_DAYS.latest` days before it is due. After that day it can never be opened.
 */
export function cycleSendDeadline(dueDate: string): string {
  return dateOfDay(dayNumber(dueDate)! - CYCLE_SEND_WINDOW_DAYS.latest);
}

/** The cycle after `cycle` and its due date, or null when it would fall after `end_date`. */
export function cycleAfter(
  subscription: Pick<StoredSubscription, 'startDate' | 'interval' | 'endDate'>,
  cycle: number,
): { cycle: number; dueDate: string } | null {
  const dueDate = cycleDueDate(subscription.startDate, subscription.interval, cycle + 1);
  if (subscription.endDate !== null && dueDate > subscription.endDate) return null;
  return { cycle: cycle + 1, dueDate };
}

/** The first cycle the scheduler opens: journey 3's cycle 1 is the payment its QR code pays at once. */
export function firstScheduledCycle(
  subscription: Pick<StoredSubscription, 'startDate' | 'interval' | 'endDate' | 'journey'>,
): { cycle: number; dueDate: string } | null {
  return cycleAfter(subscription, subscription.journey === 'qr_with_first_payment' ? 1 : 0);
}

/** A public id derived from a text: the same text gives the same id (a retried step finds what the first made). */
export function derivedId(prefix: string, from: string): string {
  return `${prefix}_${createHash('sha256').update(from).digest('base64url').slice(0, 32)}`;
}

/** The subscription a create command makes: derived from the command's message id (a redelivery finds it). */
export const subscriptionIdFor = (createMessageId: string): string =>
  derivedId('sub', `subscription:${createMessageId}`);

/** A cycle's payment id, derived from (subscription, cycle): a retried open finds the payment it made. */
export const cyclePaymentId = (subscriptionId: string, cycle: number): string =>
  derivedId('pay', `cycle:${subscriptionId}:${cycle}`);

/** Whether a subscription can still change (`pending_authorization`, `active`). */
export const isRunning = (status: SubscriptionStatus): boolean =>
  status === 'pending_authorization' || status === 'active';

/** What an outcome the PSP reported does to a subscription; null: nothing (a replay, or it ended already). */
export type SubscriptionChange =
  | { status: 'active' }
  | { status: 'expired' }
  | {
      status: 'cancelled';
      cancelledBy: SubscriptionCanceller;
      reason: SubscriptionCancellationReason;
    };
export function decideRecurrenceChange(
  status: SubscriptionStatus,
  event: Pick<PixRecurrenceChanged, 'outcome' | 'cancelled_by'>,
): SubscriptionChange | null {
  if (!isRunning(status)) return null;
  switch (event.outcome) {
    case 'authorized':
      return status === 'pending_authorization' ? { status: 'active' } : null;
    case 'rejected':
      return status === 'pending_authorization'
        ? { status: 'cancelled', cancelledBy: 'payer', reason: 'authorization_rejected' }
        : null;
    case 'cancelled':
      return { status: 'cancelled', cancelledBy: event.cancelled_by ?? 'psp', reason: 'requested' };
    case 'expired':
      return { status: 'expired' };
  }
}

/** The subscription's today: its own clock in the sandbox, São Paulo's (`wallToday`) in production. */
export const todayOf = (subscription: Pick<StoredSubscription, 'clockDate'>, wallToday: string): string =>
  subscription.clockDate ?? wallToday;

export function toSubscriptionRecord(
  subscription: StoredSubscription,
  wallToday: string,
): SubscriptionRecord {
  return {
    subscription_id: subscription.id,
    business_id: subscription.businessId,
    customer_id: subscription.customerId,
    status: subscription.status,
    amount_centavos: subscription.amountCentavos,
    minimum_amount_centavos: subscription.minimumAmountCentavos,
    interval: subscription.interval,
    start_date: subscription.startDate,
    end_date: subscription.endDate,
    description: subscription.description,
    retry_policy: subscription.retryPolicy,
    journey: subscription.journey,
    metadata: subscription.metadata,
    authorization: subscription.authorization,
    first_payment_id: subscription.firstPaymentId,
    next_cycle: subscription.nextCycle,
    next_due_date: subscription.nextDueDate,
    next_cycle_amount_centavos: subscription.nextCycleAmountCentavos,
    current_date: todayOf(subscription, wallToday),
    cancelled_by: subscription.cancelledBy,
    cancellation_reason: subscription.cancellationReason,
    ended_at: subscription.endedAt?.toISOString() ?? null,
    created_at: subscription.createdAt.toISOString(),
    updated_at: subscription.updatedAt.toISOString(),
  };
}
