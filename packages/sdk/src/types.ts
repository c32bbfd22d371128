// The public resources as the gateway's /v1 API sends and takes them (interface.md with decisions.md). Amounts in
// requests are integer centavos; amounts in responses are BRL numbers. Written by hand, and held to the gateway's
// OpenAPI document by test/sdk.e2e.test.ts: every type's fields, and every enum's values (test/support/sdk-fields.ts).

export type PaymentMethod = 'pix' | 'crypto';
export type PaymentStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
/** SPL tokens on Solana; accepted in either case, answered in upper case. */
export type Token = 'usdc' | 'usdt' | 'eurc';

export type EventType =
  | 'payment.created'
  | 'payment.confirmed'
  | 'payment.expired'
  | 'payment.failed'
  | 'payment.cancelled'
  | 'refund.succeeded'
  | 'refund.failed';

/** A page of a list, newest first: pass the last item's id as `starting_after` for the next one. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
}

export interface PageParams {
  /** 1 to 100; the gateway's default is 10. */
  limit?: number;
  /** The id of the last item of the previous page. */
  starting_after?: string;
}

/** Options every call takes. */
export interface RequestOptions {
  /** POST only: the key the gateway dedupes on (24 h). One is generated per call when absent. */
  idempotencyKey?: string;
  /** Abort the call, retries included. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

// Payments

interface CreatePaymentCommon {
  /** Integer centavos, 100 to 999999999999. */
  amount: number;
  currency?: 'BRL' | 'brl';
  /** Serialized JSON text with your own data. */
  metadata?: string | null;
  /** One of your customers (`cust_...`). */
  customer_id?: string | null;
}

export interface CreatePixPaymentParams extends CreatePaymentCommon {
  payment_method: 'pix';
}

export interface CreateCryptoPaymentParams extends CreatePaymentCommon {
  payment_method: 'crypto';
  crypto: { currency: Token | Uppercase<Token>; network: 'solana' };
}

export type CreatePaymentParams = CreatePixPaymentParams | CreateCryptoPaymentParams;

export interface PixInstructions {
  /** `data:image/png;base64,...` of the BR Code. */
  qr_code: string;
  /** The BR Code (PIX copy and paste). */
  copia_e_cola: string;
}

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

interface PaymentCreatedCommon {
  payment_id: string;
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

/** The payment record (GET /v1/payments/{payment_id}, lists, and the `data` of `payment.*` events). */
export interface Payment {
  payment_id: string;
  /** The rail's settlement id once paid (PIX endToEndId, Solana signature). */
  transaction_id: string | null;
  business_id: string;
  method: PaymentMethod;
  status: PaymentStatus;
  amount_brl: number;
  /** PSP txid (PIX) or reference key (crypto). */
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  customer_id: string | null;
  /** What succeeded refunds returned. */
  refunded_amount_brl: number;
  created_at: string;
  updated_at: string;
}

export interface UpdatePaymentParams {
  amount?: number;
  metadata?: string | null;
}

export interface PaymentUpdated {
  payment_id: string;
  amount: number;
  fee_brl: number;
  net_amount_brl: number;
  status: PaymentStatus;
  /** PIX: a new QR code. */
  pix?: PixInstructions;
  /** Crypto whose amount changed: a new reference, link and window. */
  crypto?: CryptoInstructions;
}

export interface ListPaymentsParams extends PageParams {
  status?: PaymentStatus;
  method?: PaymentMethod;
  /** ISO date-time. */
  created_gte?: string;
  /** ISO date-time. */
  created_lt?: string;
}

/** Money kept for a payment outside its happy path (late, excess, partial, unmatched). */
export interface ReceivedFunds {
  funds_id: string;
  kind: 'late' | 'excess' | 'partial' | 'unmatched';
  rail: PaymentMethod;
  reference: string;
  amount_brl: number | null;
  amount_token: number | null;
  detected_at: string;
}

// Refunds

export interface CreateRefundParams {
  /** Integer centavos; the whole refundable rest when absent. */
  amount?: number | null;
  /** Up to 140 characters. */
  reason?: string | null;
}

export interface Refund {
  refund_id: string;
  payment_id: string;
  amount_brl: number;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  failure_reason: string | null;
  /** The PIX devolução id or the Solana signature. */
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

// Customers

export interface CreateCustomerParams {
  email?: string | null;
  phone_number?: string | null;
  /** CPF or CNPJ. */
  document_number?: string | null;
  metadata?: string | null;
}

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

export interface CreateCheckoutParams {
  product_id: string;
  return_url: string;
  cancel_url: string;
  title?: string | null;
  slug?: string | null;
  metadata?: string | null;
}

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

export interface CheckoutSession {
  session_id: string;
  checkout_id: string;
  payment_id: string;
  status: 'initiated' | 'paid' | 'expired' | 'failed' | 'cancelled';
  created_at: string;
}

/** A checkout read: its newest sessions embedded, the rest through `checkouts.sessions`. */
export interface CheckoutWithSessions extends Checkout {
  sessions: CheckoutSession[];
  sessions_has_more: boolean;
}

// Webhooks

export interface CreateWebhookParams {
  /** `https://` */
  url: string;
  events: EventType[];
}

export interface Webhook {
  webhook_id: string;
  business_id: string;
  url: string;
  events: EventType[];
  status: 'active' | 'inactive';
  created_at: string;
  updated_at: string;
}

/** The creation answer: the only time the signing secret is shown. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookDeliveryAttempt {
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface WebhookDelivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'dead' | 'cancelled';
  attempts: WebhookDeliveryAttempt[];
  next_attempt_at: string | null;
  created_at: string;
}

/** A page of a webhook's delivery history: pass `next_cursor` as `cursor` for the next one. */
export interface DeliveryPage {
  data: WebhookDelivery[];
  next_cursor: string | null;
}

export interface ListDeliveriesParams {
  limit?: number;
  cursor?: string;
}

export interface WebhookTestResult {
  event_id: string;
  status_code: number | null;
  error: string | null;
}

// Events

interface EventCommon {
  /** `evt_...`; the `webhook-id` of its deliveries: dedupe on it. */
  id: string;
  created_at: string;
  business_id: string;
}

export interface PaymentEvent extends EventCommon {
  type: Extract<EventType, `payment.${string}`>;
  data: Payment;
}

export interface RefundEvent extends EventCommon {
  type: Extract<EventType, `refund.${string}`>;
  data: Refund;
}

/** An event of GET /v1/events, the same body its webhooks receive. */
export type Event = PaymentEvent | RefundEvent;

/** What `POST /v1/webhook/{id}/test` sends: not a business event, never listed. */
export interface WebhookTestEvent extends EventCommon {
  type: 'webhook.test';
  data: { webhook_id: string };
}

/** Any body a webhook endpoint receives. */
export type WebhookEvent = Event | WebhookTestEvent;

export interface ListEventsParams extends PageParams {
  type?: EventType;
}

// Sandbox

export interface SimulateParams {
  outcome: 'paid' | 'failed' | 'expired';
  /** Centavos, for a partial payment. */
  amount?: number | null;
}
