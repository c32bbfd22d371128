import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import {
  amountCentavos,
  baseUnits,
  boundedText,
  businessId,
  businessName,
  centavos,
  chargeDebtorSchema,
  customerId,
  givenId,
  isoCalendarDate,
  isoDate,
  paymentDescription,
  paymentId,
  paymentRecordSchema,
  publicId,
  tokenDecimals,
} from './common';
import type { ChargeDebtor, PaymentRecord } from './common';
import {
  paymentMethods,
  paymentStatuses,
  receivedFundsKinds,
  receivedFundsStatuses,
  tokens,
  type PaymentMethod,
  type PaymentStatus,
  type ReceivedFundsKind,
  type ReceivedFundsStatus,
  type Token,
} from './public-api';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import { calendarDate, pixDueSchema, type PixDue } from './pix-due';

/** Rail-specific data returned on create and on an amount change. */
export interface PixInstructions {
  qr_code: string;
  copia_e_cola: string;
  /** When the charge can no longer be paid (a due-date charge: the end of `payable_until` in America/Sao_Paulo). */
  expires_at: string;
  /** A charge with a due date (`cobv`): its due date and last payable day, `YYYY-MM-DD`. Additive: absent otherwise. */
  due_date?: string;
  payable_until?: string;
}
export interface CryptoInstructions {
  currency: Token;
  network: 'solana';
  qr_code: string;
  payment_link: string;
  wallet_address: string;
  /** Token amount in base units (6 decimals), as a decimal string. */
  amount_base_units: string;
  decimals: number;
  expires_at: string;
}
export interface PaymentView {
  payment: PaymentRecord;
  pix?: PixInstructions;
  crypto?: CryptoInstructions;
}

export const pixInstructionsSchema = Joi.object<PixInstructions>({
  qr_code: Joi.string().required(),
  copia_e_cola: Joi.string().required(),
  expires_at: isoDate.required(),
  due_date: isoCalendarDate,
  payable_until: isoCalendarDate,
});
export const cryptoInstructionsSchema = Joi.object<CryptoInstructions>({
  currency: Joi.valid(...tokens).required(),
  network: Joi.valid('solana').required(),
  qr_code: Joi.string().required(),
  payment_link: Joi.string().required(),
  wallet_address: Joi.string().required(),
  amount_base_units: baseUnits.required(),
  decimals: tokenDecimals.required(),
  expires_at: isoDate.required(),
});
const paymentViewSchema = Joi.object<PaymentView>({
  payment: paymentRecordSchema.required(),
  pix: pixInstructionsSchema,
  crypto: cryptoInstructionsSchema,
});

/**
 * Internal: a change of an open payment (its amount, its metadata) that no public event announces, with the payment as
 * it now stands and its instructions; emitted with the change, so the gateway's copy follows a change whose answer never
 * reached it (docs/adr/0042-gateway-payment-read-model.md). Never delivered to a webhook.
 */
export interface PaymentChanged extends PaymentView {
  event_id: string;
  business_id: string;
  occurred_at: string;
}

export const paymentChanged = defineEvent(
  'payment.changed.v1',
  Joi.object<PaymentChanged>({
    event_id: publicId('evt').required(),
    business_id: businessId.required(),
    occurred_at: isoDate.required(),
    payment: paymentRecordSchema.required(),
    pix: pixInstructionsSchema,
    crypto: cryptoInstructionsSchema,
  }),
);

export interface CreatePayment {
  business_id: string;
  business_name: string;
  method: PaymentMethod;
  amount_centavos: number;
  metadata: string | null;
  token: Token | null;
  /** One of the business's customers (the gateway checks it is theirs); absent or null: none. */
  customer_id?: string | null;
  /** What the payment is for (a PIX charge's `solicitacaoPagador`); absent or null: none. */
  description?: string | null;
  /** The customer as a PIX charge's debtor, when the customer can be one (see ChargeDebtor); absent or null: none. */
  debtor?: ChargeDebtor | null;
  /**
   * A PIX charge with a due date (`cobv`) and its rules; absent or null: an immediate charge. The gateway has checked
   * the rules (pixDueProblems) and that `debtor` is given.
   */
  due?: PixDue | null;
}
export const createPayment = defineCommand<CreatePayment, PaymentView>(
  'payment.create.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    business_name: businessName.required(),
    method: Joi.valid(...paymentMethods).required(),
    amount_centavos: amountCentavos.required(),
    metadata: boundedText('metadata').allow(null).required(),
    token: Joi.valid(...tokens, null).required(),
    customer_id: customerId.allow(null),
    description: paymentDescription.allow(null),
    debtor: chargeDebtorSchema.allow(null),
    due: pixDueSchema.allow(null),
  }),
  paymentViewSchema,
  [
    'MISSING_FIELDS',
    'INVALID_FIELDS',
    'INVALID_AMOUNT',
    'UNSUPPORTED_PAYMENT_METHOD',
    'NO_FEE_RULE',
    'IDEMPOTENCY_CONFLICT',
    'DUE_DATE_NOT_SUPPORTED',
  ],
);

export interface GetPayment {
  business_id: string;
  payment_id: string;
}
export const getPayment = defineCommand<GetPayment, PaymentView>(
  'payment.get.v1',
  'payment',
  Joi.object({ business_id: businessId.required(), payment_id: givenId.required() }),
  paymentViewSchema,
  ['NOT_FOUND'],
);

/** `fund_` + url-safe characters: one received-funds record, the cursor of its list. */
export const receivedFundsId = publicId('fund');

/**
 * The quote the watcher had when it recorded money that does not count for its payment (docs/money-model.md#suspense):
 * how many of `token` one BRL buys (`token_per_brl`, an exact ratio `numerator/denominator`, as a locked quote is
 * stored) and when it was taken. Money that arrived outside its payment's window is valued at this quote, never at
 * the quote the payment locked when it was created.
 */
export interface ArrivalQuote {
  token: Token;
  token_per_brl: string;
  quoted_at: string;
}
export const arrivalQuoteSchema = Joi.object<ArrivalQuote>({
  token: Joi.valid(...tokens).required(),
  token_per_brl: Joi.string()
    .pattern(/^[1-9]\d{0,99}\/[1-9]\d{0,99}$/)
    .required(),
  quoted_at: isoDate.required(),
});

export interface ReceivedFundsItem {
  funds_id: string;
  kind: ReceivedFundsKind;
  rail: PaymentMethod;
  /** PIX endToEndId, or the Solana signature (reference for a partial amount kept at expiry). */
  reference: string;
  /**
   * Crypto: the transfer instruction of the transaction the money came in ("2", or "2.0" for an inner one); null for
   * a whole transfer or transaction. Absent from older replies.
   */
  instruction?: string | null;
  amount_centavos: number | null;
  /** Token base units, as a decimal string (crypto). */
  amount_base_units: string | null;
  /** Decimals of `amount_base_units` (the payment's token); null without a token amount. */
  decimals: number | null;
  detected_at: string;
  status: ReceivedFundsStatus;
  /** The refund id that returns or returned it, `manual` (MANUAL_RETURN), `operator` (OPERATOR_RETURN), or null. */
  returned_by: string | null;
  returned_at: string | null;
  /** The payment whose business the operator assigned it to (status `assigned`); absent or null otherwise. */
  assigned_payment_id?: string | null;
  assigned_at?: string | null;
  /**
   * Tokens that arrived outside their payment's window: the quote of their arrival that valued them in BRL. Null for
   * PIX, for tokens valued at their payment's locked quote (they arrived within its window) and for tokens no quote
   * valued; absent from older replies.
   */
  quote?: ArrivalQuote | null;
  /** The value in BRL centavos the books hold the money at; null when it was not valued (nothing booked). */
  valued_centavos?: number | null;
}
const receivedFundsItemSchema = Joi.object<ReceivedFundsItem>({
  funds_id: receivedFundsId.required(),
  kind: Joi.valid(...receivedFundsKinds).required(),
  rail: Joi.valid(...paymentMethods).required(),
  reference: Joi.string().required(),
  instruction: Joi.string().allow(null),
  amount_centavos: centavos.allow(null).required(),
  amount_base_units: baseUnits.allow(null).required(),
  decimals: tokenDecimals.allow(null).required(),
  detected_at: isoDate.required(),
  status: Joi.valid(...receivedFundsStatuses).required(),
  returned_by: Joi.string().allow(null).required(),
  returned_at: isoDate.allow(null).required(),
  assigned_payment_id: paymentId.allow(null),
  assigned_at: isoDate.allow(null),
  quote: arrivalQuoteSchema.allow(null),
  valued_centavos: centavos.allow(null),
});
/** A page of a payment's received funds, newest first (`starting_after` = a `funds_id`). */
export interface ListReceivedFunds extends PageQuery {
  business_id: string;
  payment_id: string;
}
export const listReceivedFunds = defineCommand<ListReceivedFunds, Page<ReceivedFundsItem>>(
  'payment.received-funds.list.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    payment_id: givenId.required(),
    limit: pageLimit,
    starting_after: receivedFundsId.allow(null),
  }),
  pageSchema(receivedFundsItemSchema),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

/** One received-funds record as the operator lists it: whose payment of which business it is kept for. */
export interface OperatorReceivedFundsItem extends ReceivedFundsItem {
  /** The payment the money named (one the gateway may not know: money kept as unmatched). */
  payment_id: string;
  /** The payment's business; null for a payment the gateway does not know. */
  business_id: string | null;
  /**
   * Returned by the operator through the rail (`returned_by` `operator`): the rail's id of the return, the PIX
   * devolução id or the Solana signature; null otherwise. Absent from older replies.
   */
  return_reference?: string | null;
  /** Why the operator's last return through the rail failed (the funds are held again); null otherwise. */
  return_failure_reason?: string | null;
}
/**
 * The operator's page of received funds across every business, newest first (`starting_after` = a `funds_id`),
 * optionally of one kind (`unreadable`: transactions the watcher could not read yet) and one status.
 */
export interface ListAllReceivedFunds extends PageQuery {
  kind?: ReceivedFundsKind;
  status?: ReceivedFundsStatus;
}
/** The operator's view of one record (list-all, assign). */
export const operatorReceivedFundsItemSchema = (
  receivedFundsItemSchema as Joi.ObjectSchema<OperatorReceivedFundsItem>
).keys({
  payment_id: givenId.required(),
  business_id: businessId.allow(null).required(),
  return_reference: Joi.string().allow(null),
  return_failure_reason: Joi.string().allow(null),
});
export const listAllReceivedFunds = defineCommand<ListAllReceivedFunds, Page<OperatorReceivedFundsItem>>(
  'payment.received-funds.list-all.v1',
  'payment',
  Joi.object({
    kind: Joi.valid(...receivedFundsKinds),
    status: Joi.valid(...receivedFundsStatuses),
    limit: pageLimit,
    starting_after: receivedFundsId.allow(null),
  }),
  pageSchema(operatorReceivedFundsItemSchema),
  ['INVALID_FIELDS'],
);

/**
 * Records that received funds of the business's payment were returned to the payer outside the gateway (by hand), so
 * no refund returns them again. NOT_FOUND for another business's payment or a record not of it; INVALID_STATUS when
 * they were returned already or a refund in flight carries them.
 */
export interface ReturnReceivedFunds {
  business_id: string;
  payment_id: string;
  funds_id: string;
}
export const returnReceivedFunds = defineCommand<ReturnReceivedFunds, ReceivedFundsItem>(
  'payment.received-funds.return.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    payment_id: givenId.required(),
    funds_id: receivedFundsId.required(),
  }),
  receivedFundsItemSchema,
  ['NOT_FOUND', 'INVALID_STATUS', 'NO_FEE_RULE'],
);

/**
 * A page of the business's payments, newest first (creation time, then id: stable while payments are created),
 * after the payment `starting_after`, narrowed by the filters of docs/api.md#lists-and-pagination.
 */
export interface ListPayments extends PageQuery {
  business_id: string;
  status?: PaymentStatus;
  method?: PaymentMethod;
  /** ISO-8601 date-times: created at or after `created_gte`, before `created_lt`. */
  created_gte?: string;
  created_lt?: string;
  /** Only the cycles of this subscription. */
  subscription_id?: string;
}
export const listPayments = defineCommand<ListPayments, Page<PaymentRecord>>(
  'payment.list.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: paymentId.allow(null),
    status: Joi.valid(...paymentStatuses),
    method: Joi.valid(...paymentMethods),
    created_gte: isoDate,
    created_lt: isoDate,
    subscription_id: publicId('sub'),
  }),
  pageSchema(paymentRecordSchema),
  ['INVALID_FIELDS'],
);

/**
 * Internal: where a reader of the payment change feed stands. `xid` is a PostgreSQL transaction id (decimal digits)
 * and `payment_id` the last payment read at it; the feed goes on after that pair.
 */
export interface PaymentChangeCursor {
  xid: string;
  payment_id: string;
}
/** Internal: the next payments changed after `after`, in the order their changes committed, at most `limit`. */
export interface ReadPaymentChanges {
  after: PaymentChangeCursor;
  limit: number;
}
/**
 * Internal: a page of the payment change feed. Every payment (any business) whose last change comes after the cursor,
 * as it stands now, with its instructions; `last` is the cursor of the last one (null when none); `settled_below`: every
 * transaction with a lower id had finished when the page was read, so a reader that has stored every page from `xid`
 * up to here may start its next pass at it and miss nothing (docs/adr/0043-payment-lists-from-the-change-feed.md).
 */
export interface PaymentChangesPage {
  payments: PaymentView[];
  last: PaymentChangeCursor | null;
  settled_below: string;
  has_more: boolean;
}
const transactionId = Joi.string().pattern(/^\d{1,20}$/);
const changeCursorSchema = Joi.object<PaymentChangeCursor>({
  xid: transactionId.required(),
  payment_id: Joi.string().max(64).allow('').required(),
});
/** Internal (the gateway's read model): the payment change feed, in the order changes commit. */
export const readPaymentChanges = defineCommand<ReadPaymentChanges, PaymentChangesPage>(
  'payment.changes.v1',
  'payment',
  Joi.object({
    after: changeCursorSchema.required(),
    limit: Joi.number().integer().min(1).max(500).required(),
  }),
  Joi.object<PaymentChangesPage>({
    payments: Joi.array().items(paymentViewSchema).required(),
    last: changeCursorSchema.allow(null).required(),
    settled_below: transactionId.required(),
    has_more: Joi.boolean().required(),
  }),
  [],
);

export interface UpdatePayment {
  business_id: string;
  payment_id: string;
  amount_centavos?: number;
  metadata?: string | null;
}
export const updatePayment = defineCommand<UpdatePayment, PaymentView>(
  'payment.update.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    payment_id: givenId.required(),
    amount_centavos: amountCentavos,
    metadata: boundedText('metadata').allow(null),
  }),
  paymentViewSchema,
  ['NOT_FOUND', 'MISSING_FIELDS', 'INVALID_FIELDS', 'INVALID_AMOUNT', 'INVALID_STATUS', 'NO_FEE_RULE'],
);

/** Cancels an open (`pending` or `processing`) payment; any other status is INVALID_STATUS naming it. */
export interface CancelPayment {
  business_id: string;
  payment_id: string;
}
export const cancelPayment = defineCommand<CancelPayment, PaymentView>(
  'payment.cancel.v1',
  'payment',
  Joi.object({ business_id: businessId.required(), payment_id: paymentId.required() }),
  paymentViewSchema,
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/**
 * What a sandbox simulation makes happen: the open payment paid, failed or expired; or, on a paid PIX payment, a MED
 * raised by the payer's bank (`disputed`) and its end (`dispute_won`, `dispute_lost`).
 */
export const simulationOutcomes = [
  'paid',
  'failed',
  'expired',
  'disputed',
  'dispute_won',
  'dispute_lost',
] as const;
export type SimulationOutcome = (typeof simulationOutcomes)[number];
/** The outcomes that act on a paid payment's dispute rather than on an open payment. */
export const disputeSimulations: ReadonlySet<SimulationOutcome> = new Set([
  'disputed',
  'dispute_won',
  'dispute_lost',
]);

export interface SimulatePayment {
  business_id: string;
  payment_id: string;
  outcome: SimulationOutcome;
  amount_centavos: number | null;
  /**
   * `paid` on a PIX payment with a due date: the day (`YYYY-MM-DD`, São Paulo) the sandbox payer pays it, between its
   * creation and `payable_until`; the PSP simulator charges what is due that day, its clock untouched. Additive: absent
   * or null, today.
   */
  paid_on?: string | null;
}
export const simulatePayment = defineCommand<SimulatePayment, { accepted: true }>(
  'payment.simulate.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    payment_id: givenId.required(),
    outcome: Joi.valid(...simulationOutcomes).required(),
    amount_centavos: amountCentavos.allow(null).required(),
    paid_on: calendarDate.allow(null),
  }),
  Joi.object({ accepted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_FIELDS', 'INVALID_AMOUNT', 'INVALID_STATUS'],
);

export interface FeeRule {
  business_id: string;
  method: PaymentMethod;
  percent_bps: number;
  fixed_centavos: number;
}
/** A fee rule's percentage, in basis points: 0 to 100 %. */
export const feePercentBps = Joi.number().integer().min(0).max(10_000);

export const setFeeRule = defineCommand<FeeRule, FeeRule>(
  'fee-rule.set.v1',
  'payment',
  Joi.object({
    business_id: businessId.required(),
    method: Joi.valid(...paymentMethods).required(),
    percent_bps: feePercentBps.required(),
    fixed_centavos: centavos.required(),
  }),
  Joi.object({
    business_id: businessId.required(),
    method: Joi.valid(...paymentMethods).required(),
    percent_bps: Joi.number().integer().required(),
    fixed_centavos: centavos.required(),
  }),
  ['INVALID_FIELDS'],
);

export { paymentId };
