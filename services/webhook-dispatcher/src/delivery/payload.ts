import { serviceSignature, standardWebhookHeaders } from '../domain/signature';

export type WebhookEventType = 'payment.created' | 'payment.confirmed' | 'payment.expired' | 'payment.failed';

/** The payment record exactly as GET /v1/payments/{payment_id} returns it. */
export interface PaymentRecordPayload {
  payment_id: string;
  transaction_id: string | null;
  business_id: string;
  method: 'pix' | 'crypto' | 'card';
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'expired' | 'cancelled';
  amount_brl: number;
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEvent {
  /** `evt_...`; also the Standard Webhooks `webhook-id`, so receivers can dedupe retries. */
  id: string;
  type: WebhookEventType;
  /** ISO 8601. */
  createdAt: string;
  businessId: string;
  data: PaymentRecordPayload;
}

export interface SignedHeadersInput {
  body: Buffer;
  eventId: string;
  /** Unix seconds of this attempt. */
  timestampSeconds: number;
  secret: string;
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
  return {
    'x-service-signature': serviceSignature(input.secret, input.body),
    ...standardWebhookHeaders({
      eventId: input.eventId,
      timestamp: input.timestampSeconds,
      body: input.body,
      secret: input.secret,
    }),
  };
}
