// The public resources as the gateway's /v1 API sends and takes them (docs/api.md). Amounts in requests are integer
// centavos; amounts in responses are BRL numbers. The requests and answers are generated from the gateway's operation
// table (generated/types.ts, `pnpm generate:sdk`): the JSON Schema its OpenAPI document publishes, as TypeScript. This
// file gives them the names the SDK has always exported, and declares the SDK's own types (pages, call options).

import type * as Generated from './generated/types';
import type { OperationTypes } from './generated/types';

export type {
  CheckoutWithSessions,
  CryptoPayer,
  CryptoPaymentCreated,
  Customer,
  EventPayment,
  EventRefund,
  Payment,
  PaymentDetails,
  PaymentUpdated,
  Payout,
  PixPayer,
  PixPaymentCreated,
  Product,
  ReceivedFunds,
  Refund,
  Webhook,
  WebhookTestEvent,
  WebhookWithSecret,
} from './generated/types';

// Payments

export type PaymentMethod = Generated.Payment['method'];
export type PaymentStatus = Generated.Payment['status'];
/** A stablecoin a crypto payment is paid in. */
export type Token = Lowercase<Generated.CryptoPaymentInstructions['currency']>;
export type PaymentPayer = NonNullable<Generated.Payment['payer']>;
export type PixInstructions = Generated.PixCode;
export type CryptoInstructions = Generated.CryptoPaymentInstructions;
export type PaymentCreated = OperationTypes['createPayment']['answer'];
export type ReceivedFundsStatus = Generated.ReceivedFunds['status'];

export type CreatePaymentParams = Generated.CreatePaymentRequest;
export type CreatePixPaymentParams = Extract<CreatePaymentParams, { payment_method: 'pix' }>;
export type CreateCryptoPaymentParams = Extract<CreatePaymentParams, { payment_method: 'crypto' }>;
export type UpdatePaymentParams = Generated.UpdatePaymentRequest;
export type ListPaymentsParams = OperationTypes['listPayments']['query'];

// Refunds

export type CreateRefundParams = Generated.CreateRefundRequest;

// Payouts

export type PayoutStatus = Generated.Payout['status'];
export type CreatePayoutParams = Generated.CreatePayoutRequest;

// Customers

export type CreateCustomerParams = Generated.CreateCustomerRequest;

// Checkouts

export type CreateCheckoutParams = Generated.CreateCheckoutRequest;
export type CheckoutSession = Generated.CheckoutWithSessions['sessions'][number];
/** A checkout as created and listed: without its sessions (GET /v1/checkouts/{checkout_id} adds them). */
export type Checkout = Omit<Generated.CheckoutWithSessions, 'sessions' | 'sessions_has_more'>;

// Webhooks

export type EventType = Generated.CreateWebhookRequest['events'][number];
export type CreateWebhookParams = Generated.CreateWebhookRequest;
/**
 * A delivery of an event to a webhook. Its `status` is one of the dispatcher's states (its table's CHECK constraint);
 * the document still types it as a plain string, so the SDK narrows it here.
 */
export type WebhookDelivery = Omit<Generated.WebhookDelivery, 'status'> & {
  status: 'pending' | 'delivered' | 'dead' | 'cancelled';
};
export type WebhookDeliveryAttempt = WebhookDelivery['attempts'][number];
/** A page of a webhook's delivery history: pass `next_cursor` as `cursor` for the next one. */
export type DeliveryPage = Omit<OperationTypes['listWebhookDeliveries']['answer'], 'data'> & {
  data: WebhookDelivery[];
};
export type ListDeliveriesParams = OperationTypes['listWebhookDeliveries']['query'];
export type WebhookTestResult = Generated.WebhookTested;

// Events

/** Any body a webhook endpoint receives. */
export type WebhookEvent = Generated.DeliveredEvent;
/** An event of GET /v1/events, the same body its webhooks receive. */
export type Event = Exclude<WebhookEvent, Generated.WebhookTestEvent>;
export type PaymentEvent = Extract<Event, { data: Generated.EventPayment }>;
export type RefundEvent = Extract<Event, { data: Generated.EventRefund }>;
export type PayoutEvent = Extract<Event, { data: Generated.Payout }>;
export type ListEventsParams = OperationTypes['listEvents']['query'];

// Sandbox

export type SimulateParams = Generated.SimulatePaymentRequest;

// The SDK's own

/** A page of a list, newest first: pass the last item's id as `starting_after` for the next one. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** `limit`: 1 to 100 (the gateway's default is 10); `starting_after`: the id of the last item of the previous page. */
export type PageParams = OperationTypes['listCustomers']['query'];

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
