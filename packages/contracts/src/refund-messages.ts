import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import {
  amountCentavos,
  baseUnits,
  boundedText,
  businessId,
  centavos,
  isoDate,
  paymentId,
  givenId,
  publicId,
} from './common';
import { centavosToBrl } from './money';
import { paymentMethods, refundStatuses, type PaymentMethod, type Refund } from './public-api';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';

/** `ref_` + url-safe characters. */
export const refundId = publicId('ref');

/**
 * How long after a PIX is paid it may be refunded (BCB rule for devoluções): later is REFUND_NOT_ALLOWED. The PSP
 * enforces it too; checking it first answers the merchant at once.
 */
export const PIX_REFUND_WINDOW_DAYS = 90;

/** Sandbox rule of both stand-ins (PSP simulator, local chain): a refund with this reason is carried out and fails. */
export const FAILING_REFUND_REASON = 'simulate:fail';

/** A refund as the payment service keeps it: the public `Refund` with its owner, its method and money in integer centavos. */
export interface RefundRecord extends Omit<Refund, 'amount_brl'> {
  business_id: string;
  method: PaymentMethod;
  amount_centavos: number;
}

export const refundRecordSchema = Joi.object<RefundRecord>({
  refund_id: refundId.required(),
  payment_id: paymentId.required(),
  business_id: businessId.required(),
  method: Joi.valid(...paymentMethods).required(),
  amount_centavos: centavos.required(),
  status: Joi.valid(...refundStatuses).required(),
  reason: Joi.string().allow(null).required(),
  failure_reason: Joi.string().allow(null).required(),
  external_id: Joi.string().allow(null).required(),
  // Absent on records written before refunds could carry an excess: read as null.
  returned_funds_id: publicId('fund').allow(null),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});

/**
 * Refunds (part of) a paid payment: `amount_centavos` absent or null refunds the whole refundable rest (its amount
 * minus refunds not failed). Refused with INVALID_STATUS unless paid, INVALID_AMOUNT over the rest,
 * REFUND_NOT_ALLOWED for a PIX paid over PIX_REFUND_WINDOW_DAYS ago, INSUFFICIENT_BALANCE when the business's
 * available + pending balance does not cover it (the ledger's reservation, before anything is sent to a rail).
 */
export interface CreateRefund {
  business_id: string;
  payment_id: string;
  amount_centavos?: number | null;
  reason?: string | null;
}
export const createRefund = defineCommand<CreateRefund, RefundRecord>(
  'refund.create.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    payment_id: paymentId.required(),
    amount_centavos: amountCentavos.allow(null),
    reason: boundedText('reason').allow(null),
  }),
  refundRecordSchema,
  ['NOT_FOUND', 'INVALID_STATUS', 'INVALID_AMOUNT', 'REFUND_NOT_ALLOWED', 'INSUFFICIENT_BALANCE'],
);

export interface GetRefund {
  business_id: string;
  refund_id: string;
}
export const getRefund = defineCommand<GetRefund, RefundRecord>(
  'refund.get.v1',
  'payment',
  Joi.object({ business_id: businessId.required(), refund_id: refundId.required() }),
  refundRecordSchema,
  ['NOT_FOUND'],
);

/** A page of one payment's refunds, newest first; another business's payment is NOT_FOUND. */
export interface ListRefunds extends PageQuery {
  business_id: string;
  payment_id: string;
}
export const listRefunds = defineCommand<ListRefunds, Page<RefundRecord>>(
  'refund.list.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    payment_id: paymentId.required(),
    limit: pageLimit,
    starting_after: refundId.allow(null),
  }),
  pageSchema(refundRecordSchema),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

/** Body of the public `refund.*` events: what webhooks deliver, before the HTTP edge's BRL conversion. */
export interface RefundEventPayload {
  event_id: string;
  business_id: string;
  occurred_at: string;
  refund: RefundRecord;
}
const refundEventSchema = Joi.object<RefundEventPayload>({
  event_id: publicId('evt').required(),
  business_id: businessId.required(),
  occurred_at: isoDate.required(),
  refund: refundRecordSchema.required(),
});
export const refundSucceeded = defineEvent('refund.succeeded.v1', refundEventSchema);
export const refundFailed = defineEvent('refund.failed.v1', refundEventSchema);
export const publicRefundEvents = [refundSucceeded, refundFailed];

// The rails' side of a refund. Internal: webhooks never see them.

/** The payment service asks a rail to carry a refund out (emitted with the refund, from its outbox). */
export interface RefundRequested {
  refund_id: string;
  payment_id: string;
  amount_centavos: number;
  /** The payment's amount: a crypto refund returns this share of the token amount the payment was priced at. */
  payment_amount_centavos: number;
  reason: string | null;
  /**
   * An overpayment's excess the refund also returns, in the rail's unit (centavos for PIX, token base units for
   * crypto); absent or null when it returns none. The payment service marks that excess returned by this refund, so
   * it is never returned again, by hand or by another refund.
   */
  excess?: RefundedExcess | null;
}
export interface RefundedExcess {
  funds_id: string;
  amount_centavos: number | null;
  amount_base_units: string | null;
}
const refundRequestedSchema = Joi.object<RefundRequested>({
  refund_id: refundId.required(),
  payment_id: paymentId.required(),
  amount_centavos: centavos.min(1).required(),
  payment_amount_centavos: centavos.min(1).required(),
  reason: Joi.string().allow(null).required(),
  excess: Joi.object<RefundedExcess>({
    funds_id: publicId('fund').required(),
    amount_centavos: centavos.min(1).allow(null).required(),
    amount_base_units: baseUnits.allow(null).required(),
  }).allow(null),
});
export const pixRefundRequested = defineEvent('pix.refund.requested.v1', refundRequestedSchema);
export const cryptoRefundRequested = defineEvent('crypto.refund.requested.v1', refundRequestedSchema);

/** A rail's final word on a refund: the devolução DEVOLVIDO / NAO_REALIZADO, or the transfer confirmed / failed. */
export interface RefundSettled {
  refund_id: string;
  payment_id: string;
  outcome: 'succeeded' | 'failed';
  /** Devolução id or transaction signature; null when the rail never got that far. */
  external_id: string | null;
  failure_reason: string | null;
}
/** The longest failure reason a rail reports for a refund; longer ones are cut to it. */
export const MAX_REFUND_FAILURE_REASON = 500;
const refundSettledSchema = Joi.object<RefundSettled>({
  refund_id: refundId.required(),
  payment_id: paymentId.required(),
  outcome: Joi.valid('succeeded', 'failed').required(),
  external_id: givenId.allow(null).required(),
  failure_reason: Joi.string().max(MAX_REFUND_FAILURE_REASON).allow(null).required(),
});
export const pixRefundSettled = defineEvent('pix.refund.settled.v1', refundSettledSchema);
export const cryptoRefundSettled = defineEvent('crypto.refund.settled.v1', refundSettledSchema);

/** The refund as the public API and webhooks show it (docs/refunds.md): money in BRL. */
export function publicRefundRecord(record: RefundRecord): Refund {
  return {
    refund_id: record.refund_id,
    payment_id: record.payment_id,
    amount_brl: centavosToBrl(record.amount_centavos),
    status: record.status,
    reason: record.reason,
    failure_reason: record.failure_reason,
    external_id: record.external_id,
    returned_funds_id: record.returned_funds_id ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
