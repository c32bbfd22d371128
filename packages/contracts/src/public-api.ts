// The public /v1 API: the values of its enums, and the names of the records the services answer and the gateway
// passes on as they are (a payment and a refund as events carry them, a customer, a checkout session, a webhook and
// its deliveries). Every shape is the one generated from the operation table's schemas (`generated/operation-types.ts`,
// `pnpm generate:sdk`, docs/adr/0018-operation-table.md): `HttpApi` names them all, `HttpOperationTypes` gives each
// operation's body, query and answer. This module imports only that generated file, which imports nothing, so every
// message module may import it.

import type * as HttpApi from './generated/operation-types';

export type { HttpApi };
export type { OperationTypes as HttpOperationTypes } from './generated/operation-types';

export const paymentMethods = ['pix', 'crypto'] as const;
export type PaymentMethod = (typeof paymentMethods)[number];

/** A `pending` or `processing` payment may still change; every other status is final. */
export const paymentStatuses = ['pending', 'processing', 'paid', 'failed', 'expired', 'cancelled'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/** SPL tokens on Solana; accepted in either case, answered in upper case. */
export const tokens = ['usdc', 'usdt', 'eurc'] as const;
export type Token = (typeof tokens)[number];

// The database refuses any move out of `succeeded` or `failed`.
/** `pending` until the rail settles the refund; `succeeded` and `failed` are final. */
export const refundStatuses = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

/**
 * Money received for a payment outside its happy path: late, excess, partial, not matching it (another token, or one
 * transfer naming several payments, which pays none of them), or `unreadable`: a Solana transaction naming the
 * payment that the gateway could not read yet (amount unknown); it is read again until it can be, then counts as any
 * other transfer would.
 */
export const receivedFundsKinds = ['late', 'excess', 'partial', 'unmatched', 'unreadable'] as const;
export type ReceivedFundsKind = (typeof receivedFundsKinds)[number];

// The database lets a record be returned once: by a refund (which may still fail and give it back) or by hand.
/**
 * Whether money kept for a payment went back to the payer: `held` (not returned), `returning` (a refund in flight
 * carries it back, or the operator's return is on its rail), `returned` (by a refund that succeeded, or recorded as returned by hand), or `assigned` (the
 * operator credited it to a payment's business: it is the business's money now, never returned).
 */
export const receivedFundsStatuses = ['held', 'returning', 'returned', 'assigned'] as const;
export type ReceivedFundsStatus = (typeof receivedFundsStatuses)[number];

/**
 * What returned received funds: the refund's id (`ref_...`), `manual` (returned outside the gateway), or `operator`
 * (the operator sent them back to the payer through their rail).
 */
export const MANUAL_RETURN = 'manual';
export const OPERATOR_RETURN = 'operator';

/** The events a webhook can subscribe to, and the `type` of every event. */
export const webhookEventNames = [
  'payment.created',
  'payment.confirmed',
  'payment.expired',
  'payment.failed',
  'payment.cancelled',
  'refund.succeeded',
  'refund.failed',
  'payout.paid',
  'payout.failed',
  'dispute.created',
  'dispute.closed',
  'subscription.created',
  'subscription.activated',
  'subscription.cancelled',
  'subscription.expired',
  'subscription.cycle_retry_scheduled',
] as const;
export type WebhookEventName = (typeof webhookEventNames)[number];

/** A checkout session follows its payment: `initiated` until the payment ends, then how it ended. */
export const checkoutSessionStatuses = ['initiated', 'paid', 'expired', 'failed', 'cancelled'] as const;

// The records, as the document publishes them

/** Who paid a PIX, as the PSP reported it; a field the PSP did not report is null. */
export type PixPayer = HttpApi.PixPayer;
/** Who paid on Solana: the owner of the token account the transfer was debited from. */
export type CryptoPayer = HttpApi.CryptoPayer;
/** Who paid, once the payment is `paid`: `PixPayer` for PIX, `CryptoPayer` for crypto. */
export type PaymentPayer = NonNullable<HttpApi.Payment['payer']>;
/** A payment (GET /v1/payments/{payment_id}, lists, and the `data` of `payment.*` events): money in BRL. */
export type Payment = HttpApi.Payment;
/** A refund (GET /v1/refunds/{refund_id}, lists, and the `data` of `refund.*` events): money in BRL. */
export type Refund = HttpApi.Refund;
/** A payout (GET /v1/payouts/{payout_id}, lists, and the `data` of `payout.*` events): money in BRL. */
export type Payout = HttpApi.Payout;
/** A dispute (MED) of a PIX payment (GET /v1/disputes/{dispute_id}, lists, and the `data` of `dispute.*` events). */
export type Dispute = HttpApi.Dispute;
/** A subscription (GET /v1/subscriptions/{subscription_id}, lists, and the `data` of `subscription.*` events). */
export type Subscription = HttpApi.Subscription;
/** The `data` of `subscription.cycle_retry_scheduled`: the subscription and the cycle's failed attempt. */
export type SubscriptionCycleRetry = HttpApi.SubscriptionCycleRetry;
export type Customer = HttpApi.Customer;
export type CheckoutSession = HttpApi.CheckoutWithSessions['sessions'][number];
export type Webhook = HttpApi.Webhook;
/** The creation answer: the only time the signing secret is shown. */
export type WebhookWithSecret = HttpApi.WebhookWithSecret;

// Delivery history is additive to API 1.0.0 (docs/api.md#versions-and-environments).
/**
 * One event's delivery to a webhook, with every attempt. Its `status` is one of the dispatcher's states (its table's
 * CHECK constraint); the document types it as a plain string, so it is narrowed here.
 */
export type WebhookDelivery = Omit<HttpApi.WebhookDelivery, 'status'> & {
  status: 'pending' | 'delivered' | 'dead' | 'cancelled';
};
/** One attempt at a delivery, for debugging your endpoint. */
export type WebhookDeliveryAttempt = WebhookDelivery['attempts'][number];

/**
 * What an API key may be limited to (docs/adr/0022-api-key-scopes.md): every /v1 operation needs one of these, and a
 * key with scopes may call only the operations they cover. A `:write` scope covers its family's `:read` one; a key
 * issued without scopes has every one. `events:read` lists and reads the events webhooks carry; `balance:read` the
 * balance, its transactions and the statements.
 */
export const apiKeyScopes = [
  'payments:read',
  'payments:write',
  'refunds:read',
  'refunds:write',
  'checkouts:read',
  'checkouts:write',
  'customers:read',
  'customers:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
  'balance:read',
  'payouts:read',
  'payouts:write',
] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/** Shorthand an operator may give when issuing a key: every `:read` scope. */
export const READ_ONLY_SCOPES = 'read_only';
