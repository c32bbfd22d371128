import Joi from 'joi';
import { defineCommand } from './message';
import { MAX_AMOUNT_CENTAVOS, businessId, isoDate, publicId } from './common';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';

/**
 * Operator adjustments (docs/money-model.md#adjustments): one balanced, immutable journal the operator posts with a
 * reason, to correct a business's balance (a goodwill credit, a fee given back, a mistaken posting undone) or to book
 * between the platform's own accounts what the rails did without an event (a PSP's tariff taken from the account).
 * Money in integer centavos; the HTTP edge answers BRL.
 */

/** `adj_` + url-safe characters. */
export const adjustmentId = publicId('adj');

export const adjustmentKinds = ['business', 'platform'] as const;
export type AdjustmentKind = (typeof adjustmentKinds)[number];

/**
 * The platform account on the other side of a business adjustment: `platform_adjustments` (what the platform gives or
 * takes back at its own cost: a goodwill credit, a correction) by default, or `fee_revenue` (a fee given back).
 */
export const adjustmentCounterAccounts = ['platform_adjustments', 'fee_revenue'] as const;
export type AdjustmentCounterAccount = (typeof adjustmentCounterAccounts)[number];

/**
 * The platform's accounts a platform adjustment may move: `cash_psp` (the BRL at the PSP), `psp_fees` (what the PSP
 * charged the platform), `platform_adjustments` and `fee_revenue`. Never `suspense` (money there belongs to a record
 * that is returned or assigned) nor a business's balance (that is a business adjustment).
 */
export const adjustmentPlatformAccounts = [
  'cash_psp',
  'psp_fees',
  'platform_adjustments',
  'fee_revenue',
] as const;
export type AdjustmentPlatformAccount = (typeof adjustmentPlatformAccounts)[number];

/** The longest reason, in characters: it is the business's statement line (descriptions hold 500). */
export const ADJUSTMENT_REASON_MAX_LENGTH = 300;
/** Who asked, as the gateway names the operator's credential. */
export const ADJUSTMENT_REQUESTER_MAX_LENGTH = 100;
/** An Idempotency-Key as the gateway accepts one. */
export const ADJUSTMENT_IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Text with something to say and no NUL character (PostgreSQL text refuses NUL). */
const reasonText = Joi.string()
  .min(1)
  .max(ADJUSTMENT_REASON_MAX_LENGTH)
  .pattern(/^[^\0]*$/)
  .pattern(/\S/);

/** Signed centavos a journal line can hold and a payment could have moved; never zero. */
const adjustmentCentavos = Joi.number()
  .integer()
  .min(-MAX_AMOUNT_CENTAVOS)
  .max(MAX_AMOUNT_CENTAVOS)
  .invalid(0);

/** An adjustment as the ledger keeps it: the journal it posted, and who asked why. */
export interface AdjustmentRecord {
  adjustment_id: string;
  kind: AdjustmentKind;
  /** The business whose `available` moved (business adjustments); null for a platform adjustment. */
  business_id: string | null;
  /** Business: signed (positive credits the business); platform: positive, from `credit_account` to `debit_account`. */
  amount_centavos: number;
  /** The account debited (raised, for the platform's holdings and expenses; lowered, for a business's balance). */
  debit_account: string;
  credit_account: string;
  /** A debit was allowed to take the business's `available` below zero. */
  allow_negative_available: boolean;
  reason: string;
  requested_by: string;
  /** The journal's id in the books (a number, as text). */
  journal_id: string;
  /** The business's `adjustment` balance transaction; null for a platform adjustment. */
  balance_transaction_id: string | null;
  created_at: string;
}
export const adjustmentRecordSchema = Joi.object<AdjustmentRecord>({
  adjustment_id: adjustmentId.required(),
  kind: Joi.valid(...adjustmentKinds).required(),
  business_id: businessId.allow(null).required(),
  amount_centavos: adjustmentCentavos.required(),
  debit_account: Joi.string().max(40).required(),
  credit_account: Joi.string().max(40).required(),
  allow_negative_available: Joi.boolean().required(),
  reason: Joi.string().max(ADJUSTMENT_REASON_MAX_LENGTH).required(),
  requested_by: Joi.string().max(ADJUSTMENT_REQUESTER_MAX_LENGTH).required(),
  journal_id: Joi.string()
    .pattern(/^[0-9]+$/)
    .required(),
  balance_transaction_id: publicId('btx').allow(null).required(),
  created_at: isoDate.required(),
});

/**
 * Posts an operator adjustment. A business adjustment names `business_id`, a signed `amount_centavos` and optionally
 * its `counter_account`; a debit larger than the business's `available` is INSUFFICIENT_BALANCE unless
 * `allow_negative_available`. A platform adjustment names `debit_account` and `credit_account` (two different
 * platform accounts) and a positive amount. Any other combination is INVALID_FIELDS (INVALID_AMOUNT for the amount's
 * sign). Once per `idempotency_key` (the same request again answers the adjustment it made; another request under it
 * is IDEMPOTENCY_CONFLICT) and once per command (its inbox).
 */
export interface CreateAdjustment {
  business_id?: string | null;
  amount_centavos: number;
  counter_account?: AdjustmentCounterAccount | null;
  debit_account?: AdjustmentPlatformAccount | null;
  credit_account?: AdjustmentPlatformAccount | null;
  allow_negative_available?: boolean;
  reason: string;
  requested_by: string;
  idempotency_key?: string | null;
}
export const createAdjustment = defineCommand<CreateAdjustment, AdjustmentRecord>(
  'ledger.adjustment.create.v1',
  'ledger',
  Joi.object<CreateAdjustment>({
    business_id: businessId.allow(null),
    amount_centavos: adjustmentCentavos.required(),
    counter_account: Joi.valid(...adjustmentCounterAccounts).allow(null),
    debit_account: Joi.valid(...adjustmentPlatformAccounts).allow(null),
    credit_account: Joi.valid(...adjustmentPlatformAccounts).allow(null),
    allow_negative_available: Joi.boolean().default(false),
    reason: reasonText.required(),
    requested_by: Joi.string().min(1).max(ADJUSTMENT_REQUESTER_MAX_LENGTH).required(),
    idempotency_key: Joi.string().pattern(ADJUSTMENT_IDEMPOTENCY_KEY_PATTERN).allow(null),
  }),
  adjustmentRecordSchema,
  ['INVALID_FIELDS', 'INVALID_AMOUNT', 'INSUFFICIENT_BALANCE', 'IDEMPOTENCY_CONFLICT'],
);

/** Adjustments, newest first; only one business's when `business_id` is given. */
export interface ListAdjustments extends PageQuery {
  business_id?: string | null;
}
export const listAdjustments = defineCommand<ListAdjustments, Page<AdjustmentRecord>>(
  'ledger.adjustment.list.v1',
  'ledger',
  Joi.object({
    limit: pageLimit,
    starting_after: adjustmentId.allow(null),
    business_id: businessId.allow(null),
  }),
  pageSchema(adjustmentRecordSchema),
  ['INVALID_FIELDS'],
);
