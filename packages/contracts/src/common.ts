import Joi from 'joi';

/** `pay_` + 24 or more url-safe characters, and the same scheme for every public id prefix. */
export const publicId = (prefix: string): Joi.StringSchema =>
  Joi.string().pattern(new RegExp(`^${prefix}_[A-Za-z0-9_-]{24,64}$`));

export const businessId = publicId('biz');
export const paymentId = publicId('pay');
export const centavos = Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER);
export const isoDate = Joi.string().isoDate();
export const paymentMethods = ['pix', 'crypto'] as const;
export type PaymentMethod = (typeof paymentMethods)[number];
export const paymentStatuses = ['pending', 'processing', 'paid', 'failed', 'expired', 'cancelled'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];
export const tokens = ['usdc', 'usdt', 'eurc'] as const;
export type Token = (typeof tokens)[number];

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
  created_at: string;
  updated_at: string;
}

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
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
});
