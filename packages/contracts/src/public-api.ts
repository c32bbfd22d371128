// The public /v1 API: the values of its enums, and the shapes of the records the services answer and the gateway
// passes on as they are (a payment and a refund as events carry them, a customer, a checkout session, a webhook and
// its deliveries). The answers the gateway's HTTP edge builds itself are typed by the SDK's types generated from the
// operation table (docs/adr/0018-operation-table.md). This module imports nothing, so every message module may
// import it.

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
 * carries it back), `returned` (by a refund that succeeded, or recorded as returned by hand).
 */
export const receivedFundsStatuses = ['held', 'returning', 'returned'] as const;
export type ReceivedFundsStatus = (typeof receivedFundsStatuses)[number];

/** What returned received funds: the refund's id (`ref_...`) or `manual` (returned outside the gateway). */
export const MANUAL_RETURN = 'manual';

/** The events a webhook can subscribe to, and the `type` of every event. */
export const webhookEventNames = [
  'payment.created',
  'payment.confirmed',
  'payment.expired',
  'payment.failed',
  'payment.cancelled',
  'refund.succeeded',
  'refund.failed',
] as const;
export type WebhookEventName = (typeof webhookEventNames)[number];

/** A checkout session follows its payment: `initiated` until the payment ends, then how it ended. */
export const checkoutSessionStatuses = ['initiated', 'paid', 'expired', 'failed', 'cancelled'] as const;

// Payments

/** Who paid a PIX, as the PSP reported it; a field the PSP did not report is null. */
export interface PixPayer {
  name: string | null;
  /** CPF as `***.456.789-**`, CNPJ as `**.345.678/0001-**`: never the whole number. */
  document_masked: string | null;
}

/** Who paid on Solana: the owner of the token account the transfer was debited from. */
export interface CryptoPayer {
  address: string;
}

/** Who paid, once the payment is `paid`: `PixPayer` for PIX, `CryptoPayer` for crypto. */
export type PaymentPayer = PixPayer | CryptoPayer;

/** A payment (GET /v1/payments/{payment_id}, lists, and the `data` of `payment.*` events): money in BRL. */
export interface Payment {
  payment_id: string;
  /** The rail's settlement id once paid (PIX endToEndId, Solana signature). */
  transaction_id: string | null;
  business_id: string;
  method: PaymentMethod;
  status: PaymentStatus;
  amount_brl: number;
  /** The gateway's fee for this payment. */
  fee_brl: number;
  /** What the business receives: `amount_brl - fee_brl`. */
  net_amount_brl: number;
  /** PSP txid (PIX) or reference key (crypto). */
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  customer_id: string | null;
  /** What succeeded refunds returned. */
  refunded_amount_brl: number;
  /** When the payment window ends (the PIX charge's, or the crypto request's). */
  expires_at: string | null;
  /** Who paid: null until `paid`, and null when the rail did not say. */
  payer: PaymentPayer | null;
  created_at: string;
  updated_at: string;
}

// Refunds

/** A refund (GET /v1/refunds/{refund_id}, lists, and the `data` of `refund.*` events): money in BRL. */
export interface Refund {
  refund_id: string;
  payment_id: string;
  amount_brl: number;
  status: RefundStatus;
  reason: string | null;
  failure_reason: string | null;
  /** The PIX devolução id or the Solana signature; null until the rail has one. */
  external_id: string | null;
  /**
   * The received funds (`fund_...`, an overpayment's excess) this refund also returns to the payer, besides
   * `amount_brl`: the refund that completes a payment's refunds carries the excess still held. Null when none.
   */
  returned_funds_id: string | null;
  created_at: string;
  updated_at: string;
}

// Customers

export interface Customer {
  customer_id: string;
  business_id: string;
  email: string | null;
  /** E.164. */
  phone_number: string | null;
  /** Digits only. */
  document_number: string | null;
  ip: string | null;
  metadata: string | null;
  created_at: string;
}

// Checkouts

export interface CheckoutSession {
  session_id: string;
  checkout_id: string;
  payment_id: string;
  status: (typeof checkoutSessionStatuses)[number];
  created_at: string;
}

// Webhooks

export interface Webhook {
  webhook_id: string;
  business_id: string;
  url: string;
  events: WebhookEventName[];
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}

/** The creation answer: the only time the signing secret is shown. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

// Delivery history is additive to API 1.0.0 (docs/api.md#versions-and-environments).
/** One attempt at a delivery, for debugging your endpoint. */
export interface WebhookDeliveryAttempt {
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

/** One event's delivery to a webhook, with every attempt. */
export interface WebhookDelivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'dead' | 'cancelled';
  attempts: WebhookDeliveryAttempt[];
  next_attempt_at: string | null;
  created_at: string;
}
