import Joi from 'joi';
import { defineEvent } from './message';
import { businessId, isoDate, publicId } from './common';

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
const payoutDestinationSchema = Joi.object<PayoutDestination>({
  pix_key: Joi.string().min(1).max(77).required(),
  pix_key_type: Joi.valid(...pixKeyTypes).required(),
  holder_document: Joi.string()
    .pattern(/^(\d{11}|\d{14})$/)
    .required(),
});

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
