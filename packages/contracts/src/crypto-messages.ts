import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import { baseUnits, businessName, centavos, isoDate, paymentId, solanaAddress } from './common';
import {
  arrivalQuoteSchema,
  cryptoInstructionsSchema,
  type ArrivalQuote,
  type CryptoInstructions,
} from './payment-commands';
import { tokens, type Token } from './public-api';

// Commands the payment service sends to the Solana watcher, and the rail events it answers with. Internal: webhooks
// never see them.

export interface OpenCryptoRequest {
  payment_id: string;
  business_name: string;
  amount_centavos: number;
  token: Token;
}
export interface CryptoRequest extends CryptoInstructions {
  reference: string;
}
const cryptoRequestSchema: Joi.ObjectSchema<CryptoRequest> = (
  cryptoInstructionsSchema as Joi.ObjectSchema
).keys({
  reference: Joi.string().required(),
});
export const openCryptoRequest = defineCommand<OpenCryptoRequest, CryptoRequest>(
  'crypto.request.open.v1',
  'solana-watcher',
  Joi.object({
    payment_id: paymentId.required(),
    business_name: businessName.required(),
    amount_centavos: centavos.min(1).required(),
    token: Joi.valid(...tokens).required(),
  }),
  cryptoRequestSchema,
  ['INVALID_STATUS'],
);

export interface ChangeCryptoRequestAmount {
  payment_id: string;
  business_name: string;
  amount_centavos: number;
}
/** The new request, and what the request it replaced had received (the payment keeps that money on record). */
export interface RevisedCryptoRequest extends CryptoRequest {
  superseded: { reference: string; received_base_units: string };
}
export const changeCryptoRequestAmount = defineCommand<ChangeCryptoRequestAmount, RevisedCryptoRequest>(
  'crypto.request.change-amount.v1',
  'solana-watcher',
  Joi.object({
    payment_id: paymentId.required(),
    business_name: businessName.required(),
    amount_centavos: centavos.min(1).required(),
  }),
  (cryptoRequestSchema as Joi.ObjectSchema).keys({
    superseded: Joi.object({
      reference: Joi.string().required(),
      received_base_units: baseUnits.required(),
    }).required(),
  }),
  ['NOT_FOUND', 'INVALID_AMOUNT', 'INVALID_STATUS'],
);

export interface SimulateCryptoOutcome {
  payment_id: string;
  outcome: 'paid' | 'failed' | 'expired';
  amount_centavos: number | null;
}
export const simulateCryptoOutcome = defineCommand<SimulateCryptoOutcome, { accepted: true }>(
  'crypto.request.simulate.v1',
  'solana-watcher',
  Joi.object({
    payment_id: paymentId.required(),
    outcome: Joi.valid('paid', 'failed', 'expired').required(),
    amount_centavos: centavos.min(1).allow(null).required(),
  }),
  Joi.object({ accepted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_AMOUNT', 'INVALID_STATUS'],
);

export interface CryptoRequestSettled {
  payment_id: string;
  reference: string;
  signature: string;
  received_base_units: string;
  excess_base_units: string;
  settled_at: string;
  /**
   * The owner of the token account the settling transfer debited (who paid), as the transaction's token balances
   * show it; null when they do not. Additive: an event written before it existed has none.
   */
  payer_address?: string | null;
}
export const cryptoRequestSettled = defineEvent<CryptoRequestSettled>(
  'crypto.request.settled.v1',
  Joi.object({
    payment_id: paymentId.required(),
    reference: Joi.string().required(),
    signature: Joi.string().required(),
    received_base_units: baseUnits.required(),
    excess_base_units: baseUnits.required(),
    settled_at: isoDate.required(),
    payer_address: solanaAddress.allow(null),
  }),
);

export interface CryptoRequestClosed {
  payment_id: string;
  reference: string;
  reason: 'expired' | 'underpaid' | 'failed';
  received_base_units: string;
}
export const cryptoRequestClosed = defineEvent<CryptoRequestClosed>(
  'crypto.request.closed.v1',
  Joi.object({
    payment_id: paymentId.required(),
    reference: Joi.string().required(),
    reason: Joi.valid('expired', 'underpaid', 'failed').required(),
    received_base_units: baseUnits.required(),
  }),
);

/**
 * Why a transfer to one of our references did not count towards its payment. `ambiguous`: the transfer instruction
 * named the references of two or more payments, so it pays none of them (each is told, the money is kept).
 * `unreadable`: a transaction naming the reference that the watcher cannot read yet (amount unknown, null); it is
 * read again until it can be, and then counts like any other. `read`: that transaction has been read at last (amount
 * null): whatever its money turned out to be is reported on its own (paid, partial, late, unmatched), so the
 * unreadable record goes, whatever the outcome.
 */
export const unappliedTransferReasons = [
  'after_expiry',
  'superseded',
  'after_settlement',
  'wrong_mint',
  'ambiguous',
  'unreadable',
  'read',
] as const;
export type UnappliedTransferReason = (typeof unappliedTransferReasons)[number];

/** A transfer the watcher recorded aside (late, to a superseded reference, or in another token): never lost. */
export interface CryptoTransferUnapplied {
  payment_id: string;
  reference: string;
  signature: string;
  /**
   * Which transfer instruction of the transaction ("2", or "2.0" for an inner one): one transaction may carry several
   * transfers kept aside for the same payment, each its own money. Absent from older events (one per signature) and
   * when `reason` is `unreadable` or `read` (the whole transaction).
   */
  instruction?: string;
  /** Null only when `reason` is `unreadable` or `read`. */
  amount_base_units: string | null;
  mint: string;
  reason: UnappliedTransferReason;
  detected_at: string;
  /**
   * What values the money in BRL: the quote of the transfer's own token when the watcher recorded it (for money that
   * arrived within its payment's window and is handed over by a cancellation, that window's locked quote). Null when
   * no fresh quote could be had (the money is then not valued: nothing is booked for it, and it cannot be credited to
   * anyone), and absent from events written before it was sent and for a whole transaction (`unreadable`, `read`).
   */
  quote?: ArrivalQuote | null;
}
export const cryptoTransferUnapplied = defineEvent<CryptoTransferUnapplied>(
  'crypto.transfer.unapplied.v1',
  Joi.object({
    payment_id: paymentId.required(),
    reference: Joi.string().required(),
    signature: Joi.string().required(),
    instruction: Joi.string().pattern(/^\d{1,4}(\.\d{1,4})?$/),
    amount_base_units: Joi.when('reason', {
      is: Joi.valid('unreadable', 'read'),
      then: Joi.valid(null).required(),
      otherwise: baseUnits.required(),
    }),
    mint: Joi.string().required(),
    reason: Joi.valid(...unappliedTransferReasons).required(),
    detected_at: isoDate.required(),
    quote: arrivalQuoteSchema.allow(null),
  }),
);

/** Asks the Solana watcher what a payment's current transfer request has received (reconciliation; no effect). */
export interface GetCryptoRequestStatus {
  payment_id: string;
}
/**
 * The payment's newest request as the watcher recorded it from the chain: `settlement` is what its
 * crypto.request.settled.v1 carries once paid in full, `closure` what its crypto.request.closed.v1 carries once the
 * window ended unpaid.
 */
export interface CryptoRequestStatus {
  reference: string;
  status: 'open' | 'settled' | 'expired' | 'underpaid' | 'failed' | 'superseded';
  received_base_units: string;
  settlement: Pick<CryptoRequestSettled, 'signature' | 'received_base_units' | 'excess_base_units'> | null;
  closure: Pick<CryptoRequestClosed, 'reason' | 'received_base_units'> | null;
}
export const getCryptoRequestStatus = defineCommand<GetCryptoRequestStatus, CryptoRequestStatus>(
  'crypto.request.status.v1',
  'solana-watcher',
  Joi.object({ payment_id: paymentId.required() }),
  Joi.object({
    reference: Joi.string().required(),
    status: Joi.valid('open', 'settled', 'expired', 'underpaid', 'failed', 'superseded').required(),
    received_base_units: baseUnits.required(),
    settlement: Joi.object({
      signature: Joi.string().required(),
      received_base_units: baseUnits.required(),
      excess_base_units: baseUnits.required(),
    })
      .allow(null)
      .required(),
    closure: Joi.object({
      reason: Joi.valid('expired', 'underpaid', 'failed').required(),
      received_base_units: baseUnits.required(),
    })
      .allow(null)
      .required(),
  }),
  ['NOT_FOUND'],
);
