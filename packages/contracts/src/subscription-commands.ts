// Subscriptions (Pix Automático) between the gateway and the payment service, which owns them and their cycles (each
// cycle a payment with `subscription_id` and `cycle`), and their public events.
// docs/adr/0048-due-date-charges-and-subscriptions.md, sections 2 to 4; docs/subscriptions.md.

import Joi from 'joi';
import {
  amountCentavos,
  boundedText,
  businessId,
  businessName,
  centavos,
  chargeDebtorSchema,
  customerId,
  givenId,
  isoDate,
  paymentDescription,
  paymentId,
  publicId,
  type ChargeDebtor,
} from './common';
import { defineCommand, defineEvent } from './message';
import { centavosToBrl } from './money';
import type { Subscription, SubscriptionCycleRetry } from './public-api';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import { pixInstructionsSchema, type PixInstructions } from './payment-commands';
import { calendarDate } from './pix-due';
import {
  authorizationJourneys,
  payerAccountSchema,
  subscriptionCancellers,
  subscriptionId,
  subscriptionIntervals,
  subscriptionRetryPolicies,
  subscriptionStatuses,
  type AuthorizationJourney,
  type PayerAccount,
  type SubscriptionCanceller,
  type SubscriptionInterval,
  type SubscriptionRetryPolicy,
  type SubscriptionStatus,
} from './recurrence-messages';

/**
 * Why a subscription was cancelled: `requested` by whoever `cancelled_by` names (the merchant through the API, the
 * payer in their bank app, the PSP), or `authorization_rejected` when the payer refused to authorize it.
 */
export const subscriptionCancellationReasons = ['requested', 'authorization_rejected'] as const;
export type SubscriptionCancellationReason = (typeof subscriptionCancellationReasons)[number];

/**
 * BCB's window for a cycle's payment instruction (`cobr`): the receiver sends it between 10 and 2 days before the due
 * date. We send it 7 days before (docs/subscriptions.md#cycles): late enough that a cancellation before it costs
 * nothing at the PSP, early enough that a PSP or adapter outage of up to 5 days still opens the cycle in the window.
 */
export const CYCLE_SEND_WINDOW_DAYS = { earliest: 10, latest: 2 } as const;
export const CYCLE_SEND_DAYS_BEFORE_DUE = 7;
/**
 * The least number of days from today (São Paulo) to `start_date` for the journeys whose first cycle is a `cobr`
 * (`push`, `qr`): its last send day (2 days before) must come after a day the payer has to authorize it.
 */
export const FIRST_CYCLE_MIN_LEAD_DAYS = CYCLE_SEND_WINDOW_DAYS.latest + 1;
/** How long the payer has to authorize a `push` or `qr` subscription, at most (never past the first cycle's last send day). */
export const AUTHORIZATION_WINDOW_DAYS = 7;

/** A subscription as the payment service keeps it: money in integer centavos. */
export interface SubscriptionRecord {
  subscription_id: string;
  business_id: string;
  customer_id: string;
  status: SubscriptionStatus;
  /** A fixed amount per cycle; null when it varies per cycle. */
  amount_centavos: number | null;
  /** With a varying amount, the least a cycle may ask; null otherwise. */
  minimum_amount_centavos: number | null;
  interval: SubscriptionInterval;
  start_date: string;
  end_date: string | null;
  description: string | null;
  retry_policy: SubscriptionRetryPolicy;
  journey: AuthorizationJourney;
  metadata: string | null;
  /** The QR code (and copy-and-paste) the payer reads to authorize (`qr`, `qr_with_first_payment`); null for `push`. */
  authorization: PixInstructions | null;
  /** `qr_with_first_payment`: cycle 1's payment, paid by the authorizing QR code; null otherwise. */
  first_payment_id: string | null;
  /** The next cycle to open and its due date; null when no more cycle falls before `end_date` or it ended. */
  next_cycle: number | null;
  next_due_date: string | null;
  /**
   * With a varying amount, what the next cycle asks, as the merchant set it (`subscription.update.v1`); null: its
   * minimum. Cleared once that cycle opens. Absent from a payment service older than it.
   */
  next_cycle_amount_centavos?: number | null;
  /** The subscription's today: São Paulo's in production; in the sandbox its own clock, moved by `advance`. */
  current_date: string;
  cancelled_by: SubscriptionCanceller | null;
  cancellation_reason: SubscriptionCancellationReason | null;
  /** When it was cancelled or expired; null while it runs. */
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}
export const subscriptionRecordSchema = Joi.object<SubscriptionRecord>({
  subscription_id: subscriptionId.required(),
  business_id: businessId.required(),
  customer_id: customerId.required(),
  status: Joi.valid(...subscriptionStatuses).required(),
  amount_centavos: centavos.allow(null).required(),
  minimum_amount_centavos: centavos.allow(null).required(),
  interval: Joi.valid(...subscriptionIntervals).required(),
  start_date: calendarDate.required(),
  end_date: calendarDate.allow(null).required(),
  description: Joi.string().max(140).allow(null).required(),
  retry_policy: Joi.valid(...subscriptionRetryPolicies).required(),
  journey: Joi.valid(...authorizationJourneys).required(),
  metadata: Joi.string().allow(null).required(),
  authorization: pixInstructionsSchema.allow(null).required(),
  first_payment_id: paymentId.allow(null).required(),
  next_cycle: Joi.number().integer().min(1).allow(null).required(),
  next_due_date: calendarDate.allow(null).required(),
  next_cycle_amount_centavos: centavos.allow(null),
  current_date: calendarDate.required(),
  cancelled_by: Joi.valid(...subscriptionCancellers)
    .allow(null)
    .required(),
  cancellation_reason: Joi.valid(...subscriptionCancellationReasons)
    .allow(null)
    .required(),
  ended_at: isoDate.allow(null).required(),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});

/**
 * `subscription.create.v1`: the gateway has checked the customer (theirs, with a name and a CPF/CNPJ: `debtor`), the
 * amounts, the dates against São Paulo's today and the journey's account.
 */
export interface CreateSubscription {
  business_id: string;
  business_name: string;
  customer_id: string;
  debtor: ChargeDebtor;
  amount_centavos: number | null;
  minimum_amount_centavos: number | null;
  interval: SubscriptionInterval;
  start_date: string;
  end_date: string | null;
  description: string | null;
  retry_policy: SubscriptionRetryPolicy;
  journey: AuthorizationJourney;
  payer_account: PayerAccount | null;
  metadata: string | null;
}
export const createSubscription = defineCommand<CreateSubscription, SubscriptionRecord>(
  'subscription.create.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    business_name: businessName.required(),
    customer_id: customerId.required(),
    debtor: chargeDebtorSchema.required(),
    amount_centavos: amountCentavos.allow(null).required(),
    minimum_amount_centavos: amountCentavos.allow(null).required(),
    interval: Joi.valid(...subscriptionIntervals).required(),
    start_date: calendarDate.required(),
    end_date: calendarDate.allow(null).required(),
    description: paymentDescription.allow(null).required(),
    retry_policy: Joi.valid(...subscriptionRetryPolicies).required(),
    journey: Joi.valid(...authorizationJourneys).required(),
    payer_account: payerAccountSchema.allow(null).required(),
    metadata: boundedText('metadata').allow(null).required(),
  }),
  subscriptionRecordSchema,
  ['INVALID_FIELDS', 'IDEMPOTENCY_CONFLICT', 'NO_FEE_RULE', 'AUTOMATIC_PIX_NOT_SUPPORTED'],
);

export interface GetSubscription {
  business_id: string;
  subscription_id: string;
}
const subscriptionOfBusiness = Joi.object({
  business_id: businessId.required(),
  subscription_id: givenId.required(),
});
export const getSubscription = defineCommand<GetSubscription, SubscriptionRecord>(
  'subscription.get.v1',
  'payment',
  subscriptionOfBusiness,
  subscriptionRecordSchema,
  ['NOT_FOUND'],
);

/** A page of the business's subscriptions, newest first, narrowed by status and customer. */
export interface ListSubscriptions extends PageQuery {
  business_id: string;
  status?: SubscriptionStatus;
  customer_id?: string;
}
export const listSubscriptions = defineCommand<ListSubscriptions, Page<SubscriptionRecord>>(
  'subscription.list.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: subscriptionId.allow(null),
    status: Joi.valid(...subscriptionStatuses),
    customer_id: customerId,
  }),
  pageSchema(subscriptionRecordSchema),
  ['INVALID_FIELDS'],
);

/**
 * The merchant sets what the next cycle of a varying subscription asks (`null`: its minimum again), at least its
 * minimum, before that cycle opens: a fixed subscription, or an amount under the minimum, is INVALID_FIELDS; one not
 * `pending_authorization` or `active` (or with no cycle left) INVALID_STATUS.
 */
export interface UpdateSubscription extends GetSubscription {
  next_cycle_amount_centavos: number | null;
}
export const updateSubscription = defineCommand<UpdateSubscription, SubscriptionRecord>(
  'subscription.update.v1',
  'payment',
  subscriptionOfBusiness.keys({ next_cycle_amount_centavos: amountCentavos.allow(null).required() }),
  subscriptionRecordSchema,
  ['NOT_FOUND', 'INVALID_FIELDS', 'INVALID_STATUS'],
);

/** The merchant cancels a subscription that is `pending_authorization` or `active`; any other is INVALID_STATUS. */
export const cancelSubscription = defineCommand<GetSubscription, SubscriptionRecord>(
  'subscription.cancel.v1',
  'payment',
  subscriptionOfBusiness,
  subscriptionRecordSchema,
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/** Sandbox: what the payer's bank does (`pay_next_cycle` undoes a `fail_next_cycle` not yet applied). */
export const subscriptionSimulations = [
  'authorize',
  'reject',
  'payer_cancel',
  'fail_next_cycle',
  'pay_next_cycle',
] as const;
export type SubscriptionSimulation = (typeof subscriptionSimulations)[number];
export interface SimulateSubscription extends GetSubscription {
  outcome: SubscriptionSimulation;
}
export const simulateSubscription = defineCommand<SimulateSubscription, { accepted: true }>(
  'subscription.simulate.v1',
  'payment',
  subscriptionOfBusiness.keys({ outcome: Joi.valid(...subscriptionSimulations).required() }),
  Joi.object({ accepted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/** Sandbox: moves the subscription's clock forward to `to` (never back: INVALID_FIELDS), opening what falls due. */
export interface AdvanceSubscriptionClock extends GetSubscription {
  to: string;
}
export const advanceSubscriptionClock = defineCommand<AdvanceSubscriptionClock, SubscriptionRecord>(
  'subscription.advance.v1',
  'payment',
  subscriptionOfBusiness.keys({ to: calendarDate.required() }),
  subscriptionRecordSchema,
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

// --- public events --------------------------------------------------------------------------------------------------

/** Body of every `subscription.*` event: its business, when, and the subscription as it stands. */
export interface SubscriptionEventPayload {
  event_id: string;
  business_id: string;
  occurred_at: string;
  subscription: SubscriptionRecord;
}
const subscriptionEventFields = {
  event_id: publicId('evt').required(),
  business_id: businessId.required(),
  occurred_at: isoDate.required(),
  subscription: subscriptionRecordSchema.required(),
};
const subscriptionEvent = Joi.object<SubscriptionEventPayload>(subscriptionEventFields);

export const subscriptionCreated = defineEvent('subscription.created.v1', subscriptionEvent);
export const subscriptionActivated = defineEvent('subscription.activated.v1', subscriptionEvent);
export const subscriptionCancelled = defineEvent('subscription.cancelled.v1', subscriptionEvent);
export const subscriptionExpired = defineEvent('subscription.expired.v1', subscriptionEvent);

/** A cycle's debit failed and will be tried again on `next_attempt_on` (policy `three_in_seven_days`). */
export interface CycleRetry {
  payment_id: string;
  cycle: number;
  /** The attempt that failed: 1 for the due date, 2 and 3 for retries. */
  attempt: number;
  reason_code: string | null;
  next_attempt_on: string;
}
export interface SubscriptionCycleRetryPayload extends SubscriptionEventPayload {
  retry: CycleRetry;
}
export const subscriptionCycleRetryScheduled = defineEvent(
  'subscription.cycle_retry_scheduled.v1',
  Joi.object<SubscriptionCycleRetryPayload>({
    ...subscriptionEventFields,
    retry: Joi.object<CycleRetry>({
      payment_id: paymentId.required(),
      cycle: Joi.number().integer().min(1).required(),
      attempt: Joi.number().integer().min(1).max(4).required(),
      reason_code: Joi.string().max(8).allow(null).required(),
      next_attempt_on: calendarDate.required(),
    }).required(),
  }),
);

/** Public event name (`subscription.created`) for each versioned event, as webhooks subscribe to them. */
export const publicSubscriptionEvents = [
  subscriptionCreated,
  subscriptionActivated,
  subscriptionCancelled,
  subscriptionExpired,
  subscriptionCycleRetryScheduled,
];

/** A subscription as the API shows it (GET /v1/subscriptions, the `data` of `subscription.*` events): money in BRL. */
export function publicSubscriptionRecord(record: SubscriptionRecord): Subscription {
  return {
    subscription_id: record.subscription_id,
    customer_id: record.customer_id,
    status: record.status,
    amount_brl: record.amount_centavos === null ? null : centavosToBrl(record.amount_centavos),
    minimum_amount_brl:
      record.minimum_amount_centavos === null ? null : centavosToBrl(record.minimum_amount_centavos),
    interval: record.interval,
    start_date: record.start_date,
    end_date: record.end_date,
    description: record.description,
    retry_policy: record.retry_policy,
    authorization: {
      journey: record.journey,
      qr_code: record.authorization?.qr_code ?? null,
      copia_e_cola: record.authorization?.copia_e_cola ?? null,
      expires_at: record.authorization?.expires_at ?? null,
    },
    first_payment_id: record.first_payment_id,
    next_cycle: record.next_cycle,
    next_due_date: record.next_due_date,
    next_cycle_amount_brl:
      record.next_cycle_amount_centavos === undefined || record.next_cycle_amount_centavos === null
        ? null
        : centavosToBrl(record.next_cycle_amount_centavos),
    current_date: record.current_date,
    cancelled_by: record.cancelled_by,
    cancellation_reason: record.cancellation_reason,
    metadata: record.metadata,
    ended_at: record.ended_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The `data` of a `subscription.*` event: the subscription, and for a retry the cycle's attempt. */
export function publicSubscriptionEventData(
  event: SubscriptionEventPayload & { retry?: CycleRetry },
): Subscription | SubscriptionCycleRetry {
  const subscription = publicSubscriptionRecord(event.subscription);
  return event.retry ? { ...subscription, retry: event.retry } : subscription;
}
