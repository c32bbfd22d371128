import Joi from 'joi';
import { defineEvent } from './message';
import { businessId, isoDate, paymentRecordSchema, publicId, type PaymentRecord } from './common';

/** Body of every public `payment.*` domain event: what webhooks deliver, before the HTTP edge's BRL conversion. */
export interface PaymentEventPayload {
  event_id: string;
  business_id: string;
  occurred_at: string;
  payment: PaymentRecord;
}

const paymentEventSchema = Joi.object<PaymentEventPayload>({
  event_id: publicId('evt').required(),
  business_id: businessId.required(),
  occurred_at: isoDate.required(),
  payment: paymentRecordSchema.required(),
});

export const paymentCreated = defineEvent('payment.created.v1', paymentEventSchema);
export const paymentConfirmed = defineEvent('payment.confirmed.v1', paymentEventSchema);
export const paymentExpired = defineEvent('payment.expired.v1', paymentEventSchema);
export const paymentFailed = defineEvent('payment.failed.v1', paymentEventSchema);
export const paymentCancelled = defineEvent('payment.cancelled.v1', paymentEventSchema);

/** Public event name (`payment.confirmed`) for each versioned domain event, as webhooks subscribe to them. */
export const publicPaymentEvents = [
  paymentCreated,
  paymentConfirmed,
  paymentExpired,
  paymentFailed,
  paymentCancelled,
];
