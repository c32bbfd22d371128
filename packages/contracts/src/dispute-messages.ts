import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import { businessId, centavos, isoDate, paymentId, publicId } from './common';
import { centavosToBrl } from './money';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import type { Dispute } from './public-api';

/**
 * Disputes (MED, PIX): a devolução of nature `MED_FRAUDE` / `MED_OPERACIONAL` (or an infraction notice) the gateway
 * did not request. The rail that learns of them raises `dispute.created.v1` when one opens and `dispute.closed.v1`
 * when it ends, won or lost; the ledger posts both (docs/money-model.md#disputes): opened moves the amount from the
 * business's `available` to `blocked`, won moves it back, lost sends it from `blocked` out of the PSP account (the
 * payer got it back). The payment service keeps the disputes (docs/adr/0033-med-disputes.md) and emits both from its
 * outbox; the webhook dispatcher makes them the public events `dispute.created` / `dispute.closed`.
 */

/** `dsp_` + url-safe characters. */
export const disputeId = publicId('dsp');

export const disputeStatuses = ['open', 'won', 'lost'] as const;
export type DisputeStatus = (typeof disputeStatuses)[number];

/** A dispute as the service that keeps it records it: money in integer centavos. */
export interface DisputeRecord {
  dispute_id: string;
  payment_id: string;
  business_id: string;
  /** MED is a PIX mechanism. */
  method: 'pix';
  /** What the payer's bank claims back: at most the payment's amount. */
  amount_centavos: number;
  status: DisputeStatus;
  /** The PSP's word for it (the devolução's nature or the notice's reason). */
  reason: string | null;
  created_at: string;
  updated_at: string;
}
const disputeRecordSchema = Joi.object<DisputeRecord>({
  dispute_id: disputeId.required(),
  payment_id: paymentId.required(),
  business_id: businessId.required(),
  method: Joi.valid('pix').required(),
  amount_centavos: centavos.min(1).required(),
  status: Joi.valid(...disputeStatuses).required(),
  reason: Joi.string().max(500).allow(null).required(),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});

/** Body of the dispute events, like the other `*.v1` events of a record: its business, when, and the record. */
export interface DisputeEventPayload {
  event_id: string;
  business_id: string;
  occurred_at: string;
  dispute: DisputeRecord;
}
const disputeEvent = (status: Joi.Schema) =>
  Joi.object<DisputeEventPayload>({
    event_id: publicId('evt').required(),
    business_id: businessId.required(),
    occurred_at: isoDate.required(),
    dispute: disputeRecordSchema.keys({ status }).required(),
  });

/** A dispute opened (status `open`): its amount is blocked at once. */
export const disputeCreated = defineEvent('dispute.created.v1', disputeEvent(Joi.valid('open').required()));
/** A dispute ended: `won` (the amount is released) or `lost` (it went back to the payer). */
export const disputeClosed = defineEvent(
  'dispute.closed.v1',
  disputeEvent(Joi.valid('won', 'lost').required()),
);
export const publicDisputeEvents = [disputeCreated, disputeClosed];

/** A dispute as the API shows it (GET /v1/disputes, the `data` of `dispute.*` events): money in BRL. */
export function publicDisputeRecord(record: DisputeRecord): Dispute {
  return {
    dispute_id: record.dispute_id,
    payment_id: record.payment_id,
    amount_brl: centavosToBrl(record.amount_centavos),
    status: record.status,
    reason: record.reason,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export interface GetDispute {
  business_id: string;
  dispute_id: string;
}
export const getDispute = defineCommand<GetDispute, DisputeRecord>(
  'dispute.get.v1',
  'payment',
  Joi.object({ business_id: businessId.required(), dispute_id: disputeId.required() }),
  disputeRecordSchema,
  ['NOT_FOUND'],
);

/** A page of the business's disputes, newest first. */
export interface ListDisputes extends PageQuery {
  business_id: string;
}
export const listDisputes = defineCommand<ListDisputes, Page<DisputeRecord>>(
  'dispute.list.v1',
  'payment',
  Joi.object({ business_id: businessId.required(), limit: pageLimit, starting_after: disputeId.allow(null) }),
  pageSchema(disputeRecordSchema),
  ['INVALID_FIELDS'],
);
