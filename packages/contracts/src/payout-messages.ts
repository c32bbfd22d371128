import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import { MIN_AMOUNT_CENTAVOS, businessId, centavos, isoDate, publicId } from './common';
import { centavosToBrl } from './money';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import type { Payout } from './public-api';

/**
 * Payouts (docs/money-model.md#payouts): a business's available money sent by PIX to its own registered key. The
 * ledger reserves the amount and asks the PIX adapter to send it (`payout.requested.v1`); the adapter carries it out
 * through the PSP's "envio de Pix" and reports the outcome (`pix.payout.settled.v1`), which the ledger posts.
 */

/** `po_` + url-safe characters. */
export const payoutId = publicId('po');

export const payoutStatuses = ['pending', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof payoutStatuses)[number];

/** The DICT key types a payout account may name. */
export const pixKeyTypes = ['cpf', 'cnpj', 'email', 'phone', 'evp'] as const;
export type PixKeyType = (typeof pixKeyTypes)[number];

/** Where a business's payouts go: its own PIX key and the document (CPF/CNPJ digits) of the key's holder. */
export interface PayoutDestination {
  pix_key: string;
  pix_key_type: PixKeyType;
  /** CPF (11 digits) or CNPJ (14 digits), digits only: the PSP refuses the send when the key is someone else's. */
  holder_document: string;
}
const payoutDestinationFields = {
  pix_key: Joi.string().min(1).max(77).required(),
  pix_key_type: Joi.valid(...pixKeyTypes).required(),
  holder_document: Joi.string()
    .pattern(/^(\d{11}|\d{14})$/)
    .required(),
};
const payoutDestinationSchema = Joi.object<PayoutDestination>(payoutDestinationFields);

/** The ledger asks the PIX adapter to send a reserved payout (once: the adapter derives the PSP's id from it). */
export interface PayoutRequested {
  payout_id: string;
  business_id: string;
  amount_centavos: number;
  destination: PayoutDestination;
  requested_at: string;
}
export const payoutRequested = defineEvent<PayoutRequested>(
  'payout.requested.v1',
  Joi.object({
    payout_id: payoutId.required(),
    business_id: businessId.required(),
    amount_centavos: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).required(),
    destination: payoutDestinationSchema.required(),
    requested_at: isoDate.required(),
  }),
);

/**
 * What became of a payout at the PSP: `paid` with the PIX endToEndId, or `failed` with the PSP's reason (the money
 * never left). Reported once per outcome; the ledger posts it under `payout:<id>:<outcome>`.
 */
export interface PixPayoutSettled {
  payout_id: string;
  outcome: 'paid' | 'failed';
  end_to_end_id: string | null;
  failure_reason: string | null;
  settled_at: string;
}
export const pixPayoutSettled = defineEvent<PixPayoutSettled>(
  'pix.payout.settled.v1',
  Joi.object({
    payout_id: payoutId.required(),
    outcome: Joi.valid('paid', 'failed').required(),
    end_to_end_id: Joi.string().max(64).allow(null).required(),
    failure_reason: Joi.string().max(500).allow(null).required(),
    settled_at: isoDate.required(),
  }),
);

/** The smallest payout, in centavos (R$ 1,00, as the smallest charge); less is INVALID_AMOUNT. */
export const MIN_PAYOUT_CENTAVOS = MIN_AMOUNT_CENTAVOS;

/**
 * The form of a payout account's key per DICT key type: a CPF (11 digits) or CNPJ (14 digits), digits only; an
 * e-mail (ASCII, at most 77 characters, as DICT allows); a Brazilian phone in E.164 (`+55`, area code, 8 or 9
 * digits); an EVP (random key): a UUID.
 */
export const PIX_KEY_FORMS: Record<PixKeyType, RegExp> = {
  cpf: /^\d{11}$/,
  cnpj: /^\d{14}$/,
  email: /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/,
  phone: /^\+55\d{10,11}$/,
  evp: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};
/** The longest key DICT holds (an e-mail). */
export const PIX_KEY_MAX_LENGTH = 77;
export const HOLDER_DOCUMENT_PATTERN = /^(\d{11}|\d{14})$/;

/**
 * Which fields of a payout account are wrong, none when it is well formed: the key must have its type's form, and a
 * CPF or CNPJ key is its holder's own document (a payout goes to the business's own account).
 */
export function payoutAccountProblems(account: PayoutDestination): Array<keyof PayoutDestination> {
  const problems: Array<keyof PayoutDestination> = [];
  const form = PIX_KEY_FORMS[account.pix_key_type];
  if (account.pix_key.length > PIX_KEY_MAX_LENGTH || !form.test(account.pix_key)) problems.push('pix_key');
  if (!HOLDER_DOCUMENT_PATTERN.test(account.holder_document)) problems.push('holder_document');
  else if (
    (account.pix_key_type === 'cpf' || account.pix_key_type === 'cnpj') &&
    !problems.includes('pix_key') &&
    account.pix_key !== account.holder_document
  )
    problems.push('holder_document');
  return problems;
}

/** A payout as the ledger answers it: the public record's fields, its owner, money in integer centavos. */
export interface PayoutRecord {
  payout_id: string;
  business_id: string;
  amount_centavos: number;
  status: PayoutStatus;
  /** Where it goes, masked: the merchant API never shows a payout account's key whole. */
  destination: { pix_key_masked: string };
  /** The PIX endToEndId once paid. */
  external_id: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
}
export const payoutRecordSchema = Joi.object<PayoutRecord>({
  payout_id: payoutId.required(),
  business_id: businessId.required(),
  amount_centavos: centavos.min(1).required(),
  status: Joi.valid(...payoutStatuses).required(),
  destination: Joi.object({ pix_key_masked: Joi.string().max(100).required() }).required(),
  external_id: Joi.string().allow(null).required(),
  failure_reason: Joi.string().allow(null).required(),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});

/** The public view of a payout (GET /v1/payouts/{id}, lists, the `data` of `payout.*` events): money in BRL. */
export function publicPayoutRecord(record: PayoutRecord): Payout {
  return {
    payout_id: record.payout_id,
    amount_brl: centavosToBrl(record.amount_centavos),
    status: record.status,
    destination: { pix_key_masked: record.destination.pix_key_masked },
    external_id: record.external_id,
    failure_reason: record.failure_reason,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/**
 * Pays out the business's available money to its payout account: `amount_centavos` absent or null pays out all of
 * it. Refused with NO_PAYOUT_ACCOUNT without an account, INVALID_AMOUNT below MIN_PAYOUT_CENTAVOS, and
 * INSUFFICIENT_BALANCE over what is available. Once per command id (the gateway derives it from an Idempotency-Key).
 */
export interface CreatePayout {
  business_id: string;
  amount_centavos?: number | null;
}
export const createPayout = defineCommand<CreatePayout, PayoutRecord>(
  'ledger.payout.create.v1',
  'ledger',
  Joi.object({
    business_id: businessId.required(),
    amount_centavos: centavos.min(1).allow(null),
  }),
  payoutRecordSchema,
  ['NO_PAYOUT_ACCOUNT', 'INVALID_AMOUNT', 'INSUFFICIENT_BALANCE'],
);

export interface GetPayout {
  business_id: string;
  payout_id: string;
}
/** One of the business's payouts; another business's is NOT_FOUND. */
export const getPayout = defineCommand<GetPayout, PayoutRecord>(
  'ledger.payout.get.v1',
  'ledger',
  Joi.object({ business_id: businessId.required(), payout_id: payoutId.required() }),
  payoutRecordSchema,
  ['NOT_FOUND'],
);

/** A page of the business's payouts, newest first. */
export interface ListPayouts extends PageQuery {
  business_id: string;
}
export const listPayouts = defineCommand<ListPayouts, Page<PayoutRecord>>(
  'ledger.payout.list.v1',
  'ledger',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: payoutId.allow(null),
  }),
  pageSchema(payoutRecordSchema),
  ['INVALID_FIELDS'],
);

/** A business's payout account as the operator sets it (the operator API shows it whole). */
export interface PayoutAccount extends PayoutDestination {
  business_id: string;
  updated_at: string;
}
/** Sets (or replaces) where the business's payouts go; a malformed account is INVALID_FIELDS. Operator only. */
export interface SetPayoutAccount extends PayoutDestination {
  business_id: string;
}
export const setPayoutAccount = defineCommand<SetPayoutAccount, PayoutAccount>(
  'ledger.payout-account.set.v1',
  'ledger',
  Joi.object<SetPayoutAccount>({ business_id: businessId.required(), ...payoutDestinationFields }),
  Joi.object<PayoutAccount>({
    business_id: businessId.required(),
    ...payoutDestinationFields,
    updated_at: isoDate.required(),
  }),
  ['INVALID_FIELDS'],
);

/** Body of the public `payout.*` events: what webhooks deliver, before the HTTP edge's BRL conversion. */
export interface PayoutEventPayload {
  event_id: string;
  business_id: string;
  occurred_at: string;
  payout: PayoutRecord;
}
const payoutEventSchema = Joi.object<PayoutEventPayload>({
  event_id: publicId('evt').required(),
  business_id: businessId.required(),
  occurred_at: isoDate.required(),
  payout: payoutRecordSchema.required(),
});
/** The payout reached the business's account (`external_id`: the PIX endToEndId). */
export const payoutPaid = defineEvent('payout.paid.v1', payoutEventSchema);
/** The PSP refused or returned the payout: its amount is available again. */
export const payoutFailed = defineEvent('payout.failed.v1', payoutEventSchema);
export const publicPayoutEvents = [payoutPaid, payoutFailed];
