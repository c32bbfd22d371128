import Joi from 'joi';
import { centavosToBrl } from './money';
import {
  paymentMethods,
  paymentStatuses,
  tokens,
  type Payment,
  type PaymentMethod,
  type PaymentPayer,
  type PaymentStatus,
  type RefundStatus,
  type Token,
} from './public-api';

/** The shape of every public id: `pay_` (or another prefix) + 24 to 64 url-safe characters. */
export const publicIdPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_[A-Za-z0-9_-]{24,64}$`);

export const publicId = (prefix: string): Joi.StringSchema => Joi.string().pattern(publicIdPattern(prefix));

/** Whether a value (e.g. a path segment) can be an id of this prefix; anything else cannot exist. */
export function hasPublicIdShape(prefix: string, value: unknown): value is string {
  return typeof value === 'string' && publicIdPattern(prefix).test(value);
}

/**
 * A checkout slug: 3 to 64 of [a-z0-9] in dash-separated words. Caller-chosen slugs must have this form and generated
 * ones (title slug of at most 48, a dash, 6 random characters) always do.
 */
export const CHECKOUT_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MIN_CHECKOUT_SLUG_LENGTH = 3;
export const MAX_CHECKOUT_SLUG_LENGTH = 64;

export function hasCheckoutSlugShape(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length >= MIN_CHECKOUT_SLUG_LENGTH &&
    value.length <= MAX_CHECKOUT_SLUG_LENGTH &&
    CHECKOUT_SLUG_PATTERN.test(value)
  );
}

/**
 * What a payment (and a product price, a PATCH, a refund) may charge, in centavos: R$ 1,00 up to R$ 9.999.999.999,99,
 * the largest value API Pix accepts in `valor.original` (docs/adr/0017-rate-limits-and-input-bounds.md). The same for PIX and crypto.
 */
export const MIN_AMOUNT_CENTAVOS = 100;
export const MAX_AMOUNT_CENTAVOS = 999_999_999_999;
export const amountCentavos = Joi.number().integer().min(MIN_AMOUNT_CENTAVOS).max(MAX_AMOUNT_CENTAVOS);

/** Longest free texts, in characters (docs/adr/0017-rate-limits-and-input-bounds.md); over them is INVALID_FIELDS. */
export const TEXT_LIMITS = {
  title: 200,
  /** A refund's reason. */
  reason: 140,
  email: 254,
  url: 2048,
  /** Business and product names. */
  name: 200,
  description: 2000,
  /** The caller's serialized JSON. */
  metadata: 8192,
  slug: MAX_CHECKOUT_SLUG_LENGTH,
  /** E.164 is at most 15 digits; room for formatting. */
  phone_number: 32,
  /** CPF or CNPJ, formatted (18 characters) or not. */
  document_number: 32,
} as const;

/** A free text of a kind TEXT_LIMITS bounds. */
export const boundedText = (kind: keyof typeof TEXT_LIMITS): Joi.StringSchema =>
  Joi.string().max(TEXT_LIMITS[kind]);

/** `metadata` is the caller's own data carried as serialized JSON text, so it must parse. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The merchant's name as the rails show it to the buyer (the BR Code, the Solana Pay label): a name of TEXT_LIMITS. */
/** The name of a business or a product: required text within the `name` limit. */
const nameText = boundedText('name').min(1);
export const businessName = nameText;
export const productName = nameText;

/**
 * Longest id a message carries as its sender gave it, shape unchecked (a message or request id, an id taken from a
 * path or a body): room for every id of ours (`pay_` + 64) and for callers' own.
 */
export const MAX_ID_LENGTH = 200;
export const givenId = Joi.string().max(MAX_ID_LENGTH);

/** Deepest nesting of a JSON request body (objects and arrays); deeper is INVALID_JSON. */
export const MAX_JSON_DEPTH = 32;

export const businessId = publicId('biz');
export const paymentId = publicId('pay');
/** `cust_` + url-safe characters. */
export const customerId = publicId('cust');
export const centavos = Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER);
export const isoDate = Joi.string().isoDate();
/** Statuses a payment can still leave (a PIX is `processing` from its creation); every other status is final. */
export const openPaymentStatuses = ['pending', 'processing'] as const satisfies readonly PaymentStatus[];
/** Statuses a refund can still leave; `succeeded` and `failed` are final. */
export const openRefundStatuses = ['pending'] as const satisfies readonly RefundStatus[];
/** A token amount in base units, as decimal digits: exact beyond what a JavaScript number holds. */
export const baseUnits = Joi.string().pattern(/^[0-9]+$/);
/** How many decimals a token's base units have. */
export const tokenDecimals = Joi.number().integer().min(0).max(18);

/** Longest payer name kept, in characters (API Pix's `nome` of a person or company is at most 200). */
export const PAYER_NAME_MAX_LENGTH = 200;

/**
 * Longest payment description, in characters: a PIX charge sends it as `solicitacaoPagador`, the text the payer's bank
 * app shows, which API Pix bounds at 140 (it travels in the payment order's 140-character remittance information).
 */
export const PAYMENT_DESCRIPTION_MAX_LENGTH = 140;
/**
 * A description is shown as it is in the payer's bank app: never blank, and without control or format characters (a
 * line break, an escape, a bidi override that would make the app show other text).
 */
export const paymentDescription = Joi.string()
  .max(PAYMENT_DESCRIPTION_MAX_LENGTH)
  .pattern(/^[^\p{Cc}\p{Cf}]*[^\p{Cc}\p{Cf}\s][^\p{Cc}\p{Cf}]*$/u, 'visible text');

/**
 * Who a PIX charge is addressed to (API Pix `devedor`): the payment's customer when it has a name and a CPF (11
 * digits) or CNPJ (14 characters, digits or, since 2026, letters) with valid check digits.
 */
export interface ChargeDebtor {
  name: string;
  document: string;
}
export const chargeDebtorSchema = Joi.object<ChargeDebtor>({
  name: Joi.string().min(1).max(PAYER_NAME_MAX_LENGTH).required(),
  document: Joi.string()
    .pattern(/^(\d{11}|[0-9A-Z]{14})$/)
    .required(),
});
/**
 * How a payer's document is shown (never whole): a CPF keeps its middle six digits (`***.456.789-**`), a CNPJ its
 * eight characters after the first two, and its branch (`**.345.678/0001-**`; letters too, the alphanumeric CNPJ).
 */
export const MASKED_CPF_PATTERN = /^\*\*\*\.\d{3}\.\d{3}-\*\*$/;
export const MASKED_CNPJ_PATTERN = /^\*\*\.[0-9A-Z]{3}\.[0-9A-Z]{3}\/[0-9A-Z]{4}-\*\*$/;
/** A Solana address: 32 bytes in base58. */
export const SOLANA_ADDRESS_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export const pixPayerSchema = Joi.object({
  name: Joi.string().min(1).max(PAYER_NAME_MAX_LENGTH).allow(null).required(),
  document_masked: Joi.alternatives()
    .try(Joi.string().pattern(MASKED_CPF_PATTERN), Joi.string().pattern(MASKED_CNPJ_PATTERN))
    .allow(null)
    .required(),
});
export const solanaAddress = Joi.string().pattern(SOLANA_ADDRESS_PATTERN);
export const cryptoPayerSchema = Joi.object({ address: solanaAddress.required() });

/**
 * What a PIX charge with a due date was paid, part by part (API Pix `componentesValor`), in centavos: `original` +
 * `fine` + `interest` − `reduction` − `discount` is the amount paid.
 */
export interface AmountParts {
  original: number;
  fine: number;
  interest: number;
  reduction: number;
  discount: number;
}
export const amountPartsSchema = Joi.object<AmountParts>({
  original: centavos.required(),
  fine: centavos.required(),
  interest: centavos.required(),
  reduction: centavos.required(),
  discount: centavos.required(),
});
/** Whether the parts add up to `paid`: original + fine + interest − reduction − discount. */
export function partsAddUpTo(parts: AmountParts, paid: number): boolean {
  return parts.original + parts.fine + parts.interest - parts.reduction - parts.discount === paid;
}
/** A calendar date, `YYYY-MM-DD`. */
export const isoCalendarDate = Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/);

/** The payment as GET /v1/payments/{id} returns it, but with money in integer centavos. */
export interface PaymentRecord {
  payment_id: string;
  transaction_id: string | null;
  business_id: string;
  method: PaymentMethod;
  status: PaymentStatus;
  amount_centavos: number;
  fee_centavos: number;
  external_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  metadata: string | null;
  /** What the payment is for, as the payer's bank shows it on a PIX charge (additive: absent before it existed). */
  description?: string | null;
  /** The business's customer the payment names (additive: absent in records written before it existed). */
  customer_id?: string | null;
  /** What refunds have returned so far (succeeded ones); additive: absent in records written before refunds. */
  refunded_centavos?: number;
  /** The end of the payment window; additive: absent in records written before it was carried. */
  expires_at?: string | null;
  /**
   * A PIX charge with a due date: the due date and the last day it can be paid (`YYYY-MM-DD`, America/Sao_Paulo); null
   * (or absent) for any other payment, which has `expires_at` instead. Additive.
   */
  due_date?: string | null;
  payable_until?: string | null;
  /**
   * A due-date payment once paid: what was paid (it may differ from `amount_centavos`, the original) and its parts;
   * null (or absent) otherwise. The fee is on what was paid. Additive.
   */
  amount_paid_centavos?: number | null;
  amount_parts?: AmountParts | null;
  /** Who paid, once paid (null when the rail did not say); additive like `expires_at`. */
  payer?: PaymentPayer | null;
  /** A subscription's cycle: the subscription (`sub_...`) and the cycle's number (1, 2, …); null (or absent) otherwise. Additive. */
  subscription_id?: string | null;
  cycle?: number | null;
  /**
   * Internal: a crypto payment's token (null for PIX), which the ledger's holdings are kept in; additive: absent in
   * records written before it was carried. Never in the public `Payment`.
   */
  token?: Token | null;
  /**
   * Internal: a crypto payment's token amount in base units (null for PIX), which the ledger counts its token holdings
   * in; additive like `token`. Never in the public `Payment`.
   */
  amount_base_units?: string | null;
  /**
   * Internal: who holds a PIX payment's money. `direct`: it was paid into the business's own PSP account, and the
   * ledger records only the fee the business owes; `platform` (or absent, as in records written before it was carried):
   * the platform's account holds it. Never in the public `Payment`.
   */
  custody?: PaymentCustody;
  /**
   * Internal: how many times the payment has changed since it was made (1 when made). A copy of the payment kept
   * elsewhere (the gateway's read model) takes a record only over an older one; additive: absent in records written
   * before it was carried. Never in the public `Payment`.
   */
  version?: number;
  /**
   * Internal: what refunds not failed hold of the payment (in flight and succeeded), so more than `refunded_centavos`
   * while a refund is in flight; additive like `version`. Never in the public `Payment`.
   */
  refund_reserved_centavos?: number;
  created_at: string;
  updated_at: string;
}

/** Who holds a payment's money (docs/money-model.md#custodial-and-direct-models). */
export const paymentCustodies = ['platform', 'direct'] as const;
export type PaymentCustody = (typeof paymentCustodies)[number];

export const paymentRecordSchema = Joi.object<PaymentRecord>({
  payment_id: paymentId.required(),
  transaction_id: Joi.string().allow(null).required(),
  business_id: businessId.required(),
  method: Joi.valid(...paymentMethods).required(),
  status: Joi.valid(...paymentStatuses).required(),
  amount_centavos: centavos.required(),
  fee_centavos: centavos.required(),
  external_id: Joi.string().allow(null).required(),
  failure_code: Joi.string().allow(null).required(),
  failure_reason: Joi.string().allow(null).required(),
  metadata: Joi.string().allow(null).required(),
  description: paymentDescription.allow(null),
  customer_id: customerId.allow(null),
  refunded_centavos: centavos,
  expires_at: isoDate.allow(null),
  due_date: isoCalendarDate.allow(null),
  payable_until: isoCalendarDate.allow(null),
  amount_paid_centavos: centavos.allow(null),
  amount_parts: amountPartsSchema.allow(null),
  payer: Joi.alternatives().try(pixPayerSchema, cryptoPayerSchema).allow(null),
  subscription_id: publicId('sub').allow(null),
  cycle: Joi.number().integer().min(1).allow(null),
  token: Joi.valid(...tokens).allow(null),
  amount_base_units: baseUnits.allow(null),
  custody: Joi.valid(...paymentCustodies),
  version: Joi.number().integer().min(0),
  refund_reserved_centavos: centavos,
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});

/**
 * The payment as GET /v1/payments/{id}, lists and `payment.*` webhooks carry it: money in BRL, metadata left inside
 * (the QR codes only a read of the one payment adds).
 */
export function publicPaymentRecord(record: PaymentRecord): Payment {
  return {
    payment_id: record.payment_id,
    transaction_id: record.transaction_id,
    business_id: record.business_id,
    method: record.method,
    status: record.status,
    amount_brl: centavosToBrl(record.amount_centavos),
    fee_brl: centavosToBrl(record.fee_centavos),
    net_amount_brl: centavosToBrl(
      (record.amount_paid_centavos ?? record.amount_centavos) - record.fee_centavos,
    ),
    external_id: record.external_id,
    failure_code: record.failure_code,
    failure_reason: record.failure_reason,
    description: record.description ?? null,
    customer_id: record.customer_id ?? null,
    refunded_amount_brl: centavosToBrl(record.refunded_centavos ?? 0),
    expires_at: record.expires_at ?? null,
    // A due-date payment's own fields: only on one, so every other payment reads as it always did.
    ...(record.due_date
      ? {
          due_date: record.due_date,
          payable_until: record.payable_until ?? null,
          amount_paid:
            record.amount_paid_centavos == null ? null : centavosToBrl(record.amount_paid_centavos),
          amount_parts: record.amount_parts ? brlParts(record.amount_parts) : null,
        }
      : {}),
    payer: record.payer ?? null,
    subscription_id: record.subscription_id ?? null,
    cycle: record.cycle ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The parts of what was paid, in BRL (the JSON edge). */
function brlParts(parts: AmountParts): {
  original: number;
  fine: number;
  interest: number;
  reduction: number;
  discount: number;
} {
  return {
    original: centavosToBrl(parts.original),
    fine: centavosToBrl(parts.fine),
    interest: centavosToBrl(parts.interest),
    reduction: centavosToBrl(parts.reduction),
    discount: centavosToBrl(parts.discount),
  };
}
