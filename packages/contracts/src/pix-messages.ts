import Joi from 'joi';
import { defineCommand, defineEvent } from './message';
import {
  amountPartsSchema,
  businessId,
  businessName,
  centavos,
  chargeDebtorSchema,
  isoDate,
  paymentDescription,
  paymentId,
  pixPayerSchema,
  paymentCustodies,
  type AmountParts,
  type ChargeDebtor,
  type PaymentCustody,
} from './common';
import { calendarDate, pixDueSchema, type PixDue } from './pix-due';
import type { PixPayer } from './public-api';
import {
  pixInstructionsSchema,
  simulationOutcomes,
  type PixInstructions,
  type SimulationOutcome,
} from './payment-commands';

// Commands the payment service sends to the PIX adapter, and the rail events it answers with. Internal: webhooks
// never see them.

export interface OpenPixCharge {
  payment_id: string;
  /** Whose charge it is: a business with its own PSP account has it opened there. Additive: absent, the platform's. */
  business_id?: string;
  business_name: string;
  amount_centavos: number;
  expires_in_seconds: number;
  /** The cob's `solicitacaoPagador`: what the payer's bank app shows; absent or null: none. */
  description?: string | null;
  /** The cob's `devedor`; absent or null: a charge anyone may pay without a named debtor. Required with `due`. */
  debtor?: ChargeDebtor | null;
  /**
   * A charge with a due date: opened as a `cobv` with these rules (its window is theirs, `expires_in_seconds` is not
   * used). Additive: absent or null, an immediate `cob`.
   */
  due?: PixDue | null;
}
export interface PixCharge extends PixInstructions {
  txid: string;
  /** `direct`: opened at the business's own PSP account, paid into it. Additive: absent, the platform's account. */
  custody?: PaymentCustody;
}
const pixChargeSchema: Joi.ObjectSchema<PixCharge> = (pixInstructionsSchema as Joi.ObjectSchema).keys({
  txid: Joi.string().required(),
  custody: Joi.valid(...paymentCustodies),
});
export const openPixCharge = defineCommand<OpenPixCharge, PixCharge>(
  'pix.charge.open.v1',
  'pix-adapter',
  Joi.object({
    payment_id: paymentId.required(),
    business_id: businessId,
    business_name: businessName.required(),
    amount_centavos: centavos.min(1).required(),
    expires_in_seconds: Joi.number().integer().min(1).required(),
    description: paymentDescription.allow(null),
    debtor: chargeDebtorSchema.allow(null),
    due: pixDueSchema.allow(null),
  }),
  pixChargeSchema,
  // A charge with a due date only: rules or a date the PSP refuses (INVALID_FIELDS naming the field), a PSP that opens
  // none (DUE_DATE_NOT_SUPPORTED).
  ['INVALID_FIELDS', 'DUE_DATE_NOT_SUPPORTED'],
);

export interface ChangePixChargeAmount {
  payment_id: string;
  amount_centavos: number;
}
export const changePixChargeAmount = defineCommand<ChangePixChargeAmount, PixCharge>(
  'pix.charge.change-amount.v1',
  'pix-adapter',
  Joi.object({ payment_id: paymentId.required(), amount_centavos: centavos.min(1).required() }),
  pixChargeSchema,
  ['NOT_FOUND', 'INVALID_STATUS'],
);

export interface SimulatePixOutcome {
  payment_id: string;
  outcome: SimulationOutcome;
  amount_centavos: number | null;
  /** `paid` on a charge with a due date: the day it is paid on (see SimulatePayment.paid_on). Additive. */
  paid_on?: string | null;
}
export const simulatePixOutcome = defineCommand<SimulatePixOutcome, { accepted: true }>(
  'pix.charge.simulate.v1',
  'pix-adapter',
  Joi.object({
    payment_id: paymentId.required(),
    outcome: Joi.valid(...simulationOutcomes).required(),
    amount_centavos: centavos.min(1).allow(null).required(),
    paid_on: calendarDate.allow(null),
  }),
  Joi.object({ accepted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_STATUS', 'INVALID_AMOUNT', 'INVALID_FIELDS'],
);

export interface PixChargePaid {
  payment_id: string;
  txid: string;
  end_to_end_id: string;
  amount_centavos: number;
  paid_at: string;
  /**
   * Who paid, as the PSP's own read of the cob lists it (its `pagador`), masked by the adapter before it leaves it;
   * null when the PSP did not say. Additive: an event written before it existed has none.
   */
  payer?: PixPayer | null;
  /**
   * A Pix into a charge with a due date: its parts (`componentesValor`) when the adapter found that they add up to
   * `amount_centavos` and that each is within what the charge's rules allow on the day it was paid (it pays the charge,
   * whatever its amount against the original); null when they do not (a wrong amount: it pays nothing). Absent for an
   * immediate charge's Pix, and in events written before it existed.
   */
  amount_parts?: AmountParts | null;
}
export const pixChargePaid = defineEvent<PixChargePaid>(
  'pix.charge.paid.v1',
  Joi.object({
    payment_id: paymentId.required(),
    txid: Joi.string().required(),
    end_to_end_id: Joi.string().required(),
    amount_centavos: centavos.required(),
    paid_at: isoDate.required(),
    payer: pixPayerSchema.allow(null),
    amount_parts: amountPartsSchema.allow(null),
  }),
);

/** A PIX the PSP confirmed on a charge while it was open, for less than (or other than) its amount. */
export interface PixReceivedOnCharge {
  end_to_end_id: string;
  amount_centavos: number;
}

export interface PixChargeClosed {
  payment_id: string;
  txid: string;
  /** `underpaid`: the window passed after PIX came in that did not pay it (listed in `received_pix`). */
  reason: 'expired' | 'underpaid' | 'failed';
  detail: string | null;
  /**
   * Why a `failed` charge failed, when the adapter knows more than the PSP's word: `amount_not_accepted`, a Pix into a
   * charge with a due date whose parts the adapter did not accept (the PSP concluded the cobv with it, so it can never
   * be paid again; the Pix is in `received_pix`); `debit_failed`, a Pix Automático cycle whose attempts all failed;
   * `cycle_cancelled`, a cycle cancelled at the PSP (by the payer, or by its recurrence's end): no failed debit, the
   * payment is cancelled. Additive: absent or null, a failure as before (and a consumer that
   * does not know it fails the payment with the reason and detail, as for any `failed`).
   */
  cause?: PixChargeClosureCause | null;
  /**
   * Every PIX the charge took while open that did not pay it. Their pix.charge.paid.v1 events may be handled after
   * this one, so the closure carries them: the payment service records them and decides in one step.
   */
  received_pix: PixReceivedOnCharge[];
}
/** The causes a closure may name (`PixChargeClosed.cause`). */
export const pixChargeClosureCauses = ['amount_not_accepted', 'debit_failed', 'cycle_cancelled'] as const;
export type PixChargeClosureCause = (typeof pixChargeClosureCauses)[number];

export const pixChargeClosed = defineEvent<PixChargeClosed>(
  'pix.charge.closed.v1',
  Joi.object({
    payment_id: paymentId.required(),
    txid: Joi.string().required(),
    reason: Joi.valid('expired', 'underpaid', 'failed').required(),
    detail: Joi.string().allow(null).required(),
    cause: Joi.valid(...pixChargeClosureCauses).allow(null),
    // Added later: an event written before then has none.
    received_pix: Joi.array()
      .items(
        Joi.object({
          end_to_end_id: Joi.string().required(),
          amount_centavos: centavos.required(),
        }),
      )
      .default([]),
  }),
);

/** Asks the PIX adapter what the PSP says of a payment's charge now (reconciliation; no effect to deduplicate). */
export interface GetPixChargeStatus {
  payment_id: string;
}
/**
 * The charge as the adapter knows it after re-reading the cob at the PSP: every PIX the PSP lists on it (each one the
 * adapter reports with pix.charge.paid.v1 too) and, once the charge ended unpaid, the closure its
 * pix.charge.closed.v1 carries.
 */
export interface PixChargeStatus {
  txid: string;
  status: 'active' | 'paid' | 'expired' | 'failed';
  pix: Array<PixReceivedOnCharge & Pick<PixChargePaid, 'paid_at' | 'payer' | 'amount_parts'>>;
  closure: Pick<PixChargeClosed, 'reason' | 'detail' | 'cause' | 'received_pix'> | null;
}
const receivedPixSchema = Joi.object({
  end_to_end_id: Joi.string().required(),
  amount_centavos: centavos.required(),
});
export const getPixChargeStatus = defineCommand<GetPixChargeStatus, PixChargeStatus>(
  'pix.charge.status.v1',
  'pix-adapter',
  Joi.object({ payment_id: paymentId.required() }),
  Joi.object({
    txid: Joi.string().required(),
    status: Joi.valid('active', 'paid', 'expired', 'failed').required(),
    pix: Joi.array()
      .items(
        receivedPixSchema.keys({
          paid_at: isoDate.required(),
          payer: pixPayerSchema.allow(null),
          amount_parts: amountPartsSchema.allow(null),
        }),
      )
      .required(),
    closure: Joi.object({
      reason: Joi.valid('expired', 'underpaid', 'failed').required(),
      detail: Joi.string().allow(null).required(),
      cause: Joi.valid(...pixChargeClosureCauses).allow(null),
      received_pix: Joi.array().items(receivedPixSchema).required(),
    })
      .allow(null)
      .required(),
  }),
  ['NOT_FOUND'],
);

/** The MED natures of a devolução (API Pix `natureza`) a Pix comum can be returned under. */
export const medNatures = ['MED_FRAUDE', 'MED_OPERACIONAL'] as const;
export type MedNature = (typeof medNatures)[number];

/**
 * A MED devolução of a paid charge's Pix, as the PSP lists it, each time the adapter learns its status changed (a
 * callback, or the poll of one still in processing): `EM_PROCESSAMENTO` when it appears, then `DEVOLVIDO` (the money
 * went back to the payer) or `NAO_REALIZADO` (the analysis found for the receiver). The payment service turns it into
 * a dispute, once per devolução.
 */
export interface PixMedReported {
  payment_id: string;
  end_to_end_id: string;
  devolucao_id: string;
  amount_centavos: number;
  natureza: MedNature;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  /** The PSP's `motivo`, when it gave one. */
  motivo: string | null;
}
/** A MED devolução of a payment's Pix, as the PSP names it: its endToEndId and the devolução's id. */
export const medDevolucaoKeys = {
  payment_id: paymentId.required(),
  end_to_end_id: Joi.string()
    .pattern(/^[a-zA-Z0-9]{32}$/)
    .required(),
  devolucao_id: Joi.string()
    .pattern(/^[a-zA-Z0-9]{1,35}$/)
    .required(),
};
export const pixMedReported = defineEvent<PixMedReported>(
  'pix.med.reported.v1',
  Joi.object({
    ...medDevolucaoKeys,
    amount_centavos: centavos.min(1).required(),
    natureza: Joi.valid(...medNatures).required(),
    status: Joi.valid('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO').required(),
    motivo: Joi.string().max(500).allow(null).required(),
  }),
);
