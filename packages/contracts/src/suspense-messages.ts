import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import {
  baseUnits,
  boundedText,
  businessId,
  centavos,
  givenId,
  isoDate,
  paymentId,
  publicId,
} from './common';
import { MAX_REFUND_FAILURE_REASON } from './refund-messages';
import {
  operatorReceivedFundsItemSchema,
  receivedFundsId,
  type OperatorReceivedFundsItem,
} from './payment-commands';
import {
  MANUAL_RETURN,
  paymentMethods,
  receivedFundsKinds,
  tokens,
  type PaymentMethod,
  type Token,
} from './public-api';

/**
 * Money that belongs to no payment yet, in the books (docs/money-model.md#suspense). The payment service keeps it as
 * received funds (late, excess, partial, unmatched) and tells the ledger, from its outbox in the transaction that
 * recorded it, that the platform now holds it (`payment.funds.received.v1`); the ledger books it to `suspense`. When
 * it leaves suspense, the payment service says how: returned to the payer (`payment.funds.returned.v1`: a refund that
 * carried it succeeded, or it was recorded as returned by hand) or assigned by the operator to a payment's business
 * (`payment.funds.assigned.v1`). `unreadable` funds (a transaction not read yet, amount unknown) are not announced:
 * once read, they are announced as what they turned out to be. Internal: webhooks never see them.
 */

/** The received-funds kinds the books hold in suspense: every kind whose amount is known. */
export const suspenseFundsKinds = receivedFundsKinds.filter(
  (kind): kind is Exclude<(typeof receivedFundsKinds)[number], 'unreadable'> => kind !== 'unreadable',
);
export type SuspenseFundsKind = (typeof suspenseFundsKinds)[number];

/**
 * What identifies one sum of money whichever records keep it: one Solana transfer instruction naming several payments
 * is kept by each of them (`unmatched`), but it is one sum, booked once and returned or assigned once
 * (`crypto:<signature>:<instruction>`); any other record is its own money (`funds:<funds_id>`).
 */
export function fundsMoneyKey(funds: {
  funds_id: string;
  rail: PaymentMethod;
  reference: string;
  instruction: string | null;
}): string {
  return funds.instruction
    ? `${funds.rail}:${funds.reference}:${funds.instruction}`
    : `funds:${funds.funds_id}`;
}
const moneyKey = Joi.string().min(1).max(300);

/** The platform holds money that belongs to no payment yet. */
export interface FundsReceived {
  event_id: string;
  /** When the rail saw the money. */
  occurred_at: string;
  funds_id: string;
  /** `fundsMoneyKey`: the same for every record of one sum of money. */
  money_key: string;
  kind: SuspenseFundsKind;
  rail: PaymentMethod;
  /** The payment the money named (possibly one the gateway does not know). */
  payment_id: string;
  /** That payment's business; null when the gateway does not know the payment. */
  business_id: string | null;
  /**
   * BRL centavos: the PIX amount, or the token amount: at the quote locked for the payment (its price) when it arrived
   * within the payment's window, at the quote of its arrival when it arrived outside it; null when no quote values it
   * (none could be had, a payment the gateway does not know): the ledger then books nothing for it.
   */
  amount_centavos: number | null;
  /** Crypto: token base units, as a decimal string; null for PIX. */
  amount_base_units: string | null;
  /** Crypto: the payment's token; null for PIX or when not known. */
  token: Token | null;
  /**
   * The rail's id of the money, what reconciliation matches the books on: the Pix's endToEndId, or the Solana
   * transaction's signature. Absent from events written before it was announced.
   */
  rail_reference?: string | null;
}
const fundsEventId = publicId('evt');
const railReference = Joi.string().min(1).max(200).allow(null);
export const fundsReceived = defineEvent<FundsReceived>(
  'payment.funds.received.v1',
  Joi.object({
    event_id: fundsEventId.required(),
    occurred_at: isoDate.required(),
    funds_id: receivedFundsId.required(),
    money_key: moneyKey.required(),
    kind: Joi.valid(...suspenseFundsKinds).required(),
    rail: Joi.valid(...paymentMethods).required(),
    payment_id: givenId.required(),
    business_id: businessId.allow(null).required(),
    amount_centavos: centavos.min(1).allow(null).required(),
    amount_base_units: baseUnits.allow(null).required(),
    token: Joi.valid(...tokens)
      .allow(null)
      .required(),
    rail_reference: railReference,
  }),
);

/**
 * Money held in suspense went back to the payer: by a refund that succeeded (`returned_by` the `ref_...`), or by the
 * operator's return through the rail (`operator`, also of money naming a payment the gateway does not know:
 * `business_id` null) — either way it left the platform's holdings —, or by the business itself outside the gateway
 * (`manual`: the platform still holds it, and now owes it to the business that paid the payer back).
 */
export interface FundsReturned {
  event_id: string;
  occurred_at: string;
  funds_id: string;
  money_key: string;
  rail: PaymentMethod;
  payment_id: string;
  /**
   * The business of the payment that kept the funds; null when the gateway does not know that payment (money naming an
   * unknown payment id, returned by the operator through the rail: no business is concerned, the money leaves the
   * platform's holdings). Never null for a return by hand (`manual`): that credits the business.
   */
  business_id: string | null;
  returned_by: string;
  /**
   * Returned by hand: the fee the business's fee rule for `rail` charges on the funds' value (clamped by the ledger to
   * the value it holds), so money credited out of suspense pays the fee a payment would. Absent for a refund, and from
   * events written before it was charged (no fee).
   */
  fee_centavos?: number;
  /**
   * Returned by a refund or by the operator: the rail's id of the return (the PIX devolução id, the Solana signature),
   * which the money left under; null by hand or when the rail gave none. Absent from events written before it was announced.
   */
  rail_reference?: string | null;
}
export const fundsReturned = defineEvent<FundsReturned>(
  'payment.funds.returned.v1',
  Joi.object({
    event_id: fundsEventId.required(),
    occurred_at: isoDate.required(),
    funds_id: receivedFundsId.required(),
    money_key: moneyKey.required(),
    rail: Joi.valid(...paymentMethods).required(),
    payment_id: givenId.required(),
    business_id: Joi.when('returned_by', {
      is: MANUAL_RETURN,
      then: businessId.required(),
      otherwise: businessId.allow(null).required(),
    }),
    returned_by: Joi.string().max(80).required(),
    fee_centavos: centavos,
    rail_reference: railReference,
  }),
);

/** The operator assigned money held in suspense to a payment: its business is owed it now. */
export interface FundsAssigned {
  event_id: string;
  occurred_at: string;
  funds_id: string;
  money_key: string;
  rail: PaymentMethod;
  /** The payment the money is assigned to (by default the one it named). */
  payment_id: string;
  /** That payment's business: it is owed what the books hold for the money (its value when it was received). */
  business_id: string;
  /**
   * The fee that business's fee rule for `rail` charges on the funds' value (clamped by the ledger to the value it
   * holds), as for a payment. Absent from events written before it was charged (no fee).
   */
  fee_centavos?: number;
}
export const fundsAssigned = defineEvent<FundsAssigned>(
  'payment.funds.assigned.v1',
  Joi.object({
    event_id: fundsEventId.required(),
    occurred_at: isoDate.required(),
    funds_id: receivedFundsId.required(),
    money_key: moneyKey.required(),
    rail: Joi.valid(...paymentMethods).required(),
    payment_id: paymentId.required(),
    business_id: businessId.required(),
    fee_centavos: centavos,
  }),
);

/**
 * The operator assigns held received funds to a payment's business (by default the payment the money named; another
 * known payment with `payment_id`, e.g. for money that named a payment the gateway does not know). NOT_FOUND: no such
 * funds, or no such payment; MISSING_FIELDS: the money named no payment the gateway knows and none was given;
 * INVALID_STATUS: not held (returned, being returned, assigned already, or the same money returned or assigned through
 * another payment), or its value in BRL is not known (unreadable, or crypto without a quote); NO_FEE_RULE: the
 * payment's business has no fee rule for the money's rail (the credit pays the fee a payment would).
 */
export interface AssignReceivedFunds {
  funds_id: string;
  payment_id?: string | null;
}
export const assignReceivedFunds = defineCommand<AssignReceivedFunds, OperatorReceivedFundsItem>(
  'payment.received-funds.assign.v1',
  'payment',
  Joi.object({
    funds_id: receivedFundsId.required(),
    payment_id: paymentId.allow(null),
  }),
  operatorReceivedFundsItemSchema,
  ['NOT_FOUND', 'MISSING_FIELDS', 'INVALID_STATUS', 'NO_FEE_RULE'],
);

/**
 * The operator sends held received funds back to their payer through the rail they came by: a devolução of the Pix
 * (PIX), a token transfer to the owner of the paying token account (crypto). Answers at once with the funds
 * `returning`; the rail's outcome makes them `returned` (`returned_by` `operator`) or held again with the reason.
 * Funds kept for a payment the gateway does not know go back the same way (no business is concerned). Funds the
 * operator is returning already, or returned — through this record or, for money one transfer sent naming several
 * payments, through another record of the same money — are answered as they stand (one return on the rail).
 * NOT_FOUND: no such funds; INVALID_STATUS: assigned (through this record or another of the same money), returned by
 * hand or by a refund, being returned by a refund, or amount unknown (`unreadable`).
 */
export interface ReturnHeldFunds {
  funds_id: string;
  reason?: string | null;
}
export const returnHeldFunds = defineCommand<ReturnHeldFunds, OperatorReceivedFundsItem>(
  'payment.received-funds.send-back.v1',
  'payment',
  Joi.object({
    funds_id: receivedFundsId.required(),
    reason: boundedText('reason').allow(null),
  }),
  operatorReceivedFundsItemSchema,
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/**
 * The payment service asks a rail to send held funds back to their payer (emitted with the funds marked returning,
 * from its outbox). `return_id` is one attempt of the operator's return of these funds: the rail's id of it (the
 * devolução id) is derived from it, so any redelivery meets the same return at the rail, and an attempt after a
 * failed one is a new return.
 */
export interface FundsReturnRequested {
  return_id: string;
  funds_id: string;
  /** The payment that keeps the funds (the one the money named). */
  payment_id: string;
  /** The money at the rail: the Pix's endToEndId, or the Solana signature (a request's reference for a window's). */
  rail_reference: string;
  /** Crypto: the transfer instruction of the transaction; null for all of it, and for PIX. */
  instruction: string | null;
  /** PIX: the centavos to return; null for crypto. */
  amount_centavos: number | null;
  /** Crypto: the token base units to return; null for PIX. */
  amount_base_units: string | null;
  /** The operator's reason (the sandbox's failing word makes the stand-in rail fail it). */
  reason: string | null;
}
const fundsReturnRequestedSchema = Joi.object<FundsReturnRequested>({
  return_id: Joi.string().min(1).max(120).required(),
  funds_id: receivedFundsId.required(),
  payment_id: givenId.required(),
  rail_reference: Joi.string().min(1).max(200).required(),
  instruction: Joi.string().min(1).max(40).allow(null).required(),
  amount_centavos: centavos.min(1).allow(null).required(),
  amount_base_units: baseUnits.allow(null).required(),
  reason: Joi.string().allow(null).required(),
});
export const pixFundsReturnRequested = defineEvent(
  'pix.funds-return.requested.v1',
  fundsReturnRequestedSchema,
);
export const cryptoFundsReturnRequested = defineEvent(
  'crypto.funds-return.requested.v1',
  fundsReturnRequestedSchema,
);

/** A rail's final word on a return of held funds, as on a refund: DEVOLVIDO / NAO_REALIZADO, or confirmed / failed. */
export interface FundsReturnSettled {
  return_id: string;
  funds_id: string;
  outcome: 'succeeded' | 'failed';
  /** Devolução id or transaction signature; null when the rail never got that far. */
  external_id: string | null;
  failure_reason: string | null;
}
const fundsReturnSettledSchema = Joi.object<FundsReturnSettled>({
  return_id: Joi.string().min(1).max(120).required(),
  funds_id: receivedFundsId.required(),
  outcome: Joi.valid('succeeded', 'failed').required(),
  external_id: givenId.allow(null).required(),
  failure_reason: Joi.string().max(MAX_REFUND_FAILURE_REASON).allow(null).required(),
});
export const pixFundsReturnSettled = defineEvent('pix.funds-return.settled.v1', fundsReturnSettledSchema);
export const cryptoFundsReturnSettled = defineEvent(
  'crypto.funds-return.settled.v1',
  fundsReturnSettledSchema,
);
