// The public /v1 API: the values of its enums and the shapes it answers and reads. The gateway's HTTP edge builds
// them, the messages whose results the edge passes on as they are reuse them, and the SDK (which bundles the
// declarations of this module) hands them to merchants under these names. Doc comments are written for merchants:
// they ship in the SDK's type declarations, while `//` comments do not. This module imports nothing, so every
// message module may import it.

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

/** The `pix` object of a payment response. */
export interface PixInstructions {
  /** `data:image/png;base64,...` of the BR Code. */
  qr_code: string;
  /** The BR Code (PIX copy and paste). */
  copia_e_cola: string;
}

/** The `crypto` object of a payment response: amounts in the token, not in base units. */
export interface CryptoInstructions {
  /** Upper case: `USDC`. */
  currency: Uppercase<Token>;
  network: 'solana';
  qr_code: string;
  /** Solana Pay transfer request. */
  payment_link: string;
  wallet_address: string;
  /** Amount in the token. */
  amount: number;
  expires_at: string;
}

/**
 * A payment read on its own (GET /v1/payments/{payment_id}): while `pending` or `processing` it carries again what
 * its creation answered the payer needs (`pix` or `crypto`), so a page can show the QR code again.
 */
export interface PaymentDetails extends Payment {
  pix?: PixInstructions;
  crypto?: CryptoInstructions;
}

interface PaymentCreatedCommon {
  payment_id: string;
  /** BRL. */
  amount: number;
  status: PaymentStatus;
  fee_brl: number;
  net_amount_brl: number;
  customer_id: string | null;
}

export interface PixPaymentCreated extends PaymentCreatedCommon {
  expires_at: string;
  pix: PixInstructions;
}

export interface CryptoPaymentCreated extends PaymentCreatedCommon {
  payment_method: 'crypto';
  crypto: CryptoInstructions;
}

/** The 201 answer of a payment creation: PIX with `pix` and a top-level `expires_at`, crypto with `crypto`. */
export type PaymentCreated = PixPaymentCreated | CryptoPaymentCreated;

/** The answer of a payment update (PATCH /v1/payments/{payment_id}). */
export interface PaymentUpdated {
  payment_id: string;
  /** BRL. */
  amount: number;
  fee_brl: number;
  net_amount_brl: number;
  status: PaymentStatus;
  /** PIX: a new QR code. */
  pix?: PixInstructions;
  /** Crypto whose amount changed: a new reference, link and window. */
  crypto?: CryptoInstructions;
}

/** Money kept for a payment outside its happy path (late, excess, partial, unmatched, unreadable). */
export interface ReceivedFunds {
  funds_id: string;
  kind: ReceivedFundsKind;
  rail: PaymentMethod;
  /** PIX endToEndId, or the Solana signature (reference for a partial amount kept at expiry). */
  reference: string;
  /**
   * Crypto: which transfer instruction of the transaction `reference` carried this money ("2", or "2.0" for an inner
   * one): one transaction may hold several transfers kept for the payment, each its own record. Null for PIX and for a
   * whole transaction or window (unreadable, excess, partial).
   */
  instruction: string | null;
  /** PIX: the amount in BRL (null for crypto). */
  amount_brl: number | null;
  /** Crypto: the amount in the payment's token (null for PIX, and for `unreadable` funds). */
  amount_token: number | null;
  detected_at: string;
  /** Whether the money went back to the payer. */
  status: ReceivedFundsStatus;
  /** The refund (`ref_...`) that returns or returned it, `manual` when returned by hand, null while held. */
  returned_by: string | null;
  /** When it was returned (the refund's success, or the record of the return by hand); null until then. */
  returned_at: string | null;
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

/** The body of POST /v1/checkouts. */
export interface CreateCheckoutParams {
  product_id: string;
  return_url: string;
  cancel_url: string;
  title?: string | null;
  slug?: string | null;
  metadata?: string | null;
}

export interface CheckoutSession {
  session_id: string;
  checkout_id: string;
  payment_id: string;
  status: (typeof checkoutSessionStatuses)[number];
  created_at: string;
}

/** A checkout; its sessions come with a read of that one checkout only (`CheckoutWithSessions`). */
export interface Checkout {
  checkout_id: string;
  business_id: string;
  product_id: string;
  slug: string;
  title: string | null;
  return_url: string;
  cancel_url: string;
  metadata: string | null;
  status: 'active' | 'inactive';
  created_at: string;
  /** Where the hosted page is shared. */
  url: string;
}

/** A checkout read (GET /v1/checkouts/{checkout_id}): its newest sessions embedded, the rest listed on their own. */
export interface CheckoutWithSessions extends Checkout {
  sessions: CheckoutSession[];
  sessions_has_more: boolean;
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
