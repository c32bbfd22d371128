import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import { businessId, centavos, isoDate, paymentId, publicId } from './common';
import { MED_DEFENCE_MAX_LENGTH } from './psp-profiles';
import { medDevolucaoKeys } from './pix-messages';
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
  /**
   * When the business's defence reached the PSP (POST /v1/disputes/{id}/defence); null until then. Absent from the
   * events of disputes recorded before defences were taken.
   */
  defence_submitted_at?: string | null;
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
  defence_submitted_at: isoDate.allow(null),
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
    defence_submitted_at: record.defence_submitted_at ?? null,
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

/**
 * A business's defence of a dispute: text with something to say, no NUL character (no PSP's books, nor PostgreSQL,
 * keep one), at most what every PSP that takes a defence takes (MED_DEFENCE_MAX_LENGTH).
 */
export const disputeDefenceText = Joi.string()
  .min(1)
  .max(MED_DEFENCE_MAX_LENGTH)
  .pattern(/^[^\0]*$/, 'no NUL character')
  .pattern(/\S/, 'something to say');

/**
 * Submits the business's defence of its open dispute to the PSP that holds the MED (docs/adr/0033-med-disputes.md):
 * NOT_FOUND for another business's dispute, INVALID_STATUS for one closed or already defended,
 * DEFENCE_NOT_SUPPORTED when the PSP takes no defence through its API. Answers the dispute, `defence_submitted_at` set.
 */
export interface SubmitDisputeDefence {
  business_id: string;
  dispute_id: string;
  text: string;
}
export const submitDisputeDefence = defineCommand<SubmitDisputeDefence, DisputeRecord>(
  'dispute.defence.submit.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    dispute_id: disputeId.required(),
    text: disputeDefenceText.required(),
  }),
  disputeRecordSchema,
  ['NOT_FOUND', 'INVALID_STATUS', 'DEFENCE_NOT_SUPPORTED'],
);

/**
 * Asks the PIX adapter to send a defence of the MED devolução `devolucao_id` of the Pix `end_to_end_id` to the PSP
 * account that Pix was paid into, through its profile's `medDefence`: DEFENCE_NOT_SUPPORTED when the profile has none,
 * INVALID_STATUS when the PSP has no open infraction for the Pix (or refuses the defence), NOT_FOUND for a MED the
 * adapter does not know. A repeat, after the PSP took the defence, answers the same.
 */
export interface SubmitPixMedDefence {
  payment_id: string;
  end_to_end_id: string;
  devolucao_id: string;
  text: string;
}
export const submitPixMedDefence = defineCommand<SubmitPixMedDefence, { submitted: true }>(
  'pix.med.defence.submit.v1',
  'pix-adapter',
  Joi.object({
    ...medDevolucaoKeys,
    text: disputeDefenceText.required(),
  }),
  Joi.object({ submitted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_STATUS', 'DEFENCE_NOT_SUPPORTED'],
);
