// The public resources as the gateway's /v1 API sends and takes them (docs/api.md). Amounts in
// requests are integer centavos; amounts in responses are BRL numbers. What the gateway answers is declared once, in
// the contracts' public-api module (its HTTP edge builds those shapes); the requests and the SDK's own types are
// written here. Both are held to the gateway's OpenAPI document by test/sdk.e2e.test.ts: every type's fields, and
// every enum's values (test/support/sdk-fields.ts).
// The published SDK ships those declarations inlined: `dts.compilerOptions.paths` in package.json points the
// declaration bundler at the contracts' source, which it would otherwise leave as an import of a package the SDK does
// not install. Only types come from there (the contracts' index loads joi), so nothing of it reaches the JavaScript.

import type {
  Payment,
  PaymentMethod,
  PaymentStatus,
  Refund,
  Token,
  WebhookDelivery,
  WebhookEventName,
} from '@gateway/contracts/src/public-api';

export type {
  Checkout,
  CheckoutSession,
  CheckoutWithSessions,
  CreateCheckoutParams,
  CryptoInstructions,
  CryptoPayer,
  CryptoPaymentCreated,
  Customer,
  Payment,
  PaymentCreated,
  PaymentDetails,
  PaymentPayer,
  PaymentMethod,
  PaymentStatus,
  PaymentUpdated,
  PixInstructions,
  PixPayer,
  PixPaymentCreated,
  ReceivedFunds,
  ReceivedFundsStatus,
  Refund,
  Token,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookWithSecret,
} from '@gateway/contracts/src/public-api';

export type EventType = WebhookEventName;

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

export interface UpdatePaymentParams {
  amount?: number;
  metadata?: string | null;
}

export interface ListPaymentsParams extends PageParams {
  status?: PaymentStatus;
  method?: PaymentMethod;
  /** ISO date-time. */
  created_gte?: string;
  /** ISO date-time. */
  created_lt?: string;
}

// Refunds

export interface CreateRefundParams {
  /** Integer centavos; the whole refundable rest when absent. */
  amount?: number | null;
  /** Up to 140 characters. */
  reason?: string | null;
}

// Customers

export interface CreateCustomerParams {
  email?: string | null;
  phone_number?: string | null;
  /** CPF or CNPJ. */
  document_number?: string | null;
  metadata?: string | null;
}

// Webhooks

export interface CreateWebhookParams {
  /** `https://` */
  url: string;
  events: EventType[];
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

/** Fields a payment record gained later: an event stored before then (and its retries) does not carry them. */
type AddedPaymentFields = 'fee_brl' | 'net_amount_brl' | 'expires_at' | 'payer';

/** The payment record as the event was stored: the four later fields may be absent from older events. */
export type EventPayment = Omit<Payment, AddedPaymentFields> & Partial<Pick<Payment, AddedPaymentFields>>;

export interface PaymentEvent extends EventCommon {
  type: Extract<EventType, `payment.${string}`>;
  data: EventPayment;
}

/** The refund record as the event was stored: older events lack `returned_funds_id`. */
export type EventRefund = Omit<Refund, 'returned_funds_id'> & Partial<Pick<Refund, 'returned_funds_id'>>;

export interface RefundEvent extends EventCommon {
  type: Extract<EventType, `refund.${string}`>;
  data: EventRefund;
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
