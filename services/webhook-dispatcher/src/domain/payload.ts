import {
  publicDisputeRecord,
  publicPaymentRecord,
  publicPayoutRecord,
  publicRefundRecord,
  publicDisputeEvents,
  publicPaymentEvents,
  publicPayoutEvents,
  publicRefundEvents,
  publicSubscriptionEventData,
  publicSubscriptionEvents,
  splitName,
  type CycleRetry,
  type Subscription,
  type SubscriptionCycleRetry,
  type SubscriptionEventPayload,
  type Dispute,
  type DisputeEventPayload,
  type Payment,
  type PaymentEventPayload,
  type Payout,
  type PayoutEventPayload,
  type Refund,
  type RefundEventPayload,
  type WebhookEventName,
} from '@gateway/contracts';
import { serviceSignature, standardWebhookHeaders } from './signature';

/** The event names a webhook subscribes to, plus the one the test command sends. */
export type WebhookEventType = WebhookEventName | 'webhook.test';

/** What a `webhook.test` delivery carries: enough for the receiver to see which endpoint was tested. */
export interface WebhookTestData {
  webhook_id: string;
}

export interface WebhookEvent {
  /** `evt_...`; also the Standard Webhooks `webhook-id`, so receivers can dedupe retries. */
  id: string;
  type: WebhookEventType;
  /** ISO 8601. */
  createdAt: string;
  businessId: string;
  data: Payment | Refund | Payout | Dispute | Subscription | SubscriptionCycleRetry | WebhookTestData;
}

/** The payment an event is about: a payment's own, or its refund's or dispute's; null for a payout's or a test's. */
export function paymentOfEvent(event: WebhookEvent): string | null {
  const paymentId = (event.data as { payment_id?: unknown }).payment_id;
  return typeof paymentId === 'string' ? paymentId : null;
}

/** The webhook event for a `payment.*.v1` domain event; `type` is its public name (`payment.confirmed`). */
export function paymentWebhookEvent(type: WebhookEventName, event: PaymentEventPayload): WebhookEvent {
  return {
    id: event.event_id,
    type,
    createdAt: event.occurred_at,
    businessId: event.business_id,
    data: publicPaymentRecord(event.payment),
  };
}

/** The webhook event for a `refund.*.v1` domain event: `data` is the refund record (docs/api.md#events). */
export function refundWebhookEvent(type: WebhookEventName, event: RefundEventPayload): WebhookEvent {
  return {
    id: event.event_id,
    type,
    createdAt: event.occurred_at,
    businessId: event.business_id,
    data: publicRefundRecord(event.refund),
  };
}

/** The webhook event for a `payout.*.v1` ledger event: `data` is the payout record, its key masked. */
export function payoutWebhookEvent(type: WebhookEventName, event: PayoutEventPayload): WebhookEvent {
  return {
    id: event.event_id,
    type,
    createdAt: event.occurred_at,
    businessId: event.business_id,
    data: publicPayoutRecord(event.payout),
  };
}

/** The webhook event for a `dispute.*.v1` event: `data` is the dispute record (docs/webhooks.md). */
export function disputeWebhookEvent(type: WebhookEventName, event: DisputeEventPayload): WebhookEvent {
  return {
    id: event.event_id,
    type,
    createdAt: event.occurred_at,
    businessId: event.business_id,
    data: publicDisputeRecord(event.dispute),
  };
}

/** The webhook event for a `subscription.*.v1` event: `data` is the subscription (with the retry, for a retry). */
export function subscriptionWebhookEvent(
  type: WebhookEventName,
  event: SubscriptionEventPayload & { retry?: CycleRetry },
): WebhookEvent {
  return {
    id: event.event_id,
    type,
    createdAt: event.occurred_at,
    businessId: event.business_id,
    data: publicSubscriptionEventData(event),
  };
}

/** Each family of public domain events with the webhook event it becomes. */
const publicEventFamilies: ReadonlyArray<{
  events: ReadonlyArray<{ name: string }>;
  webhookEvent: (type: WebhookEventName, payload: never) => WebhookEvent;
}> = [
  { events: publicPaymentEvents, webhookEvent: paymentWebhookEvent },
  { events: publicRefundEvents, webhookEvent: refundWebhookEvent },
  { events: publicPayoutEvents, webhookEvent: payoutWebhookEvent },
  { events: publicDisputeEvents, webhookEvent: disputeWebhookEvent },
  { events: publicSubscriptionEvents, webhookEvent: subscriptionWebhookEvent },
];

/**
 * The webhook event of a public domain event known by its versioned name and a payload valid for it (as an event
 * log answers it); undefined for a message no webhook receives.
 */
export function webhookEventOfMessage(name: string, payload: unknown): WebhookEvent | undefined {
  const family = publicEventFamilies.find((f) => f.events.some((event) => event.name === name));
  return family?.webhookEvent(splitName(name).type as WebhookEventName, payload as never);
}

export interface SignedHeadersInput {
  body: Buffer;
  eventId: string;
  /** Unix seconds of this attempt. */
  timestampSeconds: number;
  secret: string;
  /** The secret a rotation replaced, while its overlap lasts: it signs `webhook-signature` too. */
  previousSecret?: string | null;
}

/** Serialized once: the signatures cover these exact bytes, so every retry sends the same buffer. */
export function serializeDeliveryBody(event: WebhookEvent): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: event.id,
      type: event.type,
      created_at: event.createdAt,
      business_id: event.businessId,
      data: event.data,
    }),
    'utf8',
  );
}

/** The signature headers; the sender adds `content-type` and `user-agent`. */
export function signedDeliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const signedWith = (secret: string) =>
    standardWebhookHeaders({
      eventId: input.eventId,
      timestamp: input.timestampSeconds,
      body: input.body,
      secret,
    });
  const current = signedWith(input.secret);
  // During a rotation's overlap both signatures travel, space-separated (Standard Webhooks): either secret verifies.
  const previous = input.previousSecret ? ` ${signedWith(input.previousSecret)['webhook-signature']}` : '';
  return {
    'x-service-signature': serviceSignature(input.secret, input.body),
    ...current,
    'webhook-signature': `${current['webhook-signature']}${previous}`,
  };
}
