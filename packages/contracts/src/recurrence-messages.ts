// Pix Automático between the payment service (which owns subscriptions and their cycles, each cycle a payment) and
// the PIX adapter (which owns the recurrence at the PSP: `/rec`, `/solicrec`, `/locrec`, each cycle's `cobr` and its
// attempts, and their callbacks). docs/adr/0048-due-date-charges-and-subscriptions.md, sections 2 to 4.
//
// A cycle is a payment: the adapter keeps its `cobr` as a charge of that payment, so a debited cycle is reported with
// pix.charge.paid.v1 and a cycle that can no longer be debited with pix.charge.closed.v1, as for any PIX charge, and
// a cancelled cycle payment (payment.cancelled.v1) removes its `cobr` as it removes a `cob`.

import Joi from 'joi';
import {
  businessId,
  businessName,
  centavos,
  chargeDebtorSchema,
  isoDate,
  paymentId,
  publicId,
  type ChargeDebtor,
} from './common';
import { defineCommand, defineEvent } from './message';
import { calendarDate } from './pix-due';
import { pixInstructionsSchema, type PixInstructions } from './payment-commands';

/** `sub_...`: a subscription's public id. */
export const subscriptionId = publicId('sub');

/** How often a subscription bills (API Pix `periodicidade`: SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL, ANUAL). */
export const subscriptionIntervals = ['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'] as const;
export type SubscriptionInterval = (typeof subscriptionIntervals)[number];

/** Whether a failed cycle is tried again (API Pix `politicaRetentativa`: NAO_PERMITE, PERMITE_3R_7D). */
export const subscriptionRetryPolicies = ['none', 'three_in_seven_days'] as const;
export type SubscriptionRetryPolicy = (typeof subscriptionRetryPolicies)[number];

/**
 * How the payer is asked to authorize: `push` (journey 1: their bank is asked, `/solicrec`; needs the payer's account),
 * `qr` (journey 2: a QR code that carries the authorization alone), `qr_with_first_payment` (journey 3: one QR code
 * pays the first cycle now and authorizes the rest).
 */
export const authorizationJourneys = ['push', 'qr', 'qr_with_first_payment'] as const;
export type AuthorizationJourney = (typeof authorizationJourneys)[number];

/** A subscription's states; the database holds the moves (pending_authorization -> active -> cancelled | expired). */
export const subscriptionStatuses = ['pending_authorization', 'active', 'cancelled', 'expired'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

/** Who ended a subscription. */
export const subscriptionCancellers = ['merchant', 'payer', 'psp'] as const;
export type SubscriptionCanceller = (typeof subscriptionCancellers)[number];

/** The payer's account at their bank, where journey 1 sends the request for authorization (`destinatario`). */
export interface PayerAccount {
  /** The bank's ISPB (8 characters). */
  ispb: string;
  branch: string | null;
  account: string;
}
export const payerAccountSchema = Joi.object<PayerAccount>({
  ispb: Joi.string()
    .pattern(/^[0-9A-Z]{8}$/)
    .required(),
  branch: Joi.string()
    .pattern(/^\d{1,4}$/)
    .allow(null)
    .required(),
  account: Joi.string()
    .pattern(/^[0-9A-Za-z-]{1,20}$/)
    .required(),
});

// --- payment -> pix-adapter -----------------------------------------------------------------------------------------

export interface OpenPixRecurrence {
  subscription_id: string;
  business_id: string;
  business_name: string;
  /** The payer (API Pix `vinculo.devedor`): a CPF or CNPJ and a name. */
  debtor: ChargeDebtor;
  /** A fixed amount per cycle (`valorRec`), or null: it varies per cycle. */
  amount_centavos: number | null;
  /** With a varying amount, the least a cycle may ask (`valorMinimoRecebedor`); null otherwise. */
  minimum_amount_centavos: number | null;
  interval: SubscriptionInterval;
  /** The first cycle's due date (`calendario.dataInicial`), `YYYY-MM-DD` in America/Sao_Paulo. */
  start_date: string;
  /** The last day a cycle may fall on (`calendario.dataFinal`), or null: until cancelled. */
  end_date: string | null;
  /** Shown to the payer (`vinculo.objeto`). */
  description: string | null;
  retry_policy: SubscriptionRetryPolicy;
  journey: AuthorizationJourney;
  /** Journey 1 only (`push`): where the payer's bank is asked; null otherwise. */
  payer_account: PayerAccount | null;
  /**
   * Journey 3 only (`qr_with_first_payment`): the first cycle's payment, paid by the same QR code (an immediate `cob`
   * whose txid the recurrence names in `ativacao.dadosJornada`); null otherwise.
   */
  first_payment: { payment_id: string; amount_centavos: number } | null;
  /** Until when the payer may authorize: the `solicrec`'s expiry, the QR code's; after it the recurrence expires. */
  authorization_expires_at: string;
}
/** What the payer is shown to authorize (journeys 2 and 3): the recurrence's QR code and its copy-and-paste text. */
export interface PixRecurrence {
  /** The PSP's `idRec`. */
  recurrence_id: string;
  /** Journeys 2 and 3: the QR code (and copy-and-paste) that authorizes; journey 1: null (the bank asks the payer). */
  authorization: PixInstructions | null;
  /** Journey 3: the first cycle's charge (its txid; the QR code is `authorization`'s). */
  first_payment_txid: string | null;
}
export const openPixRecurrence = defineCommand<OpenPixRecurrence, PixRecurrence>(
  'pix.recurrence.open.v1',
  'pix-adapter',
  Joi.object({
    subscription_id: subscriptionId.required(),
    business_id: businessId,
    business_name: businessName.required(),
    debtor: chargeDebtorSchema.required(),
    amount_centavos: centavos.min(1).allow(null).required(),
    minimum_amount_centavos: centavos.min(1).allow(null).required(),
    interval: Joi.valid(...subscriptionIntervals).required(),
    start_date: calendarDate.required(),
    end_date: calendarDate.allow(null).required(),
    description: Joi.string().max(140).allow(null).required(),
    retry_policy: Joi.valid(...subscriptionRetryPolicies).required(),
    journey: Joi.valid(...authorizationJourneys).required(),
    payer_account: payerAccountSchema.allow(null).required(),
    first_payment: Joi.object({
      payment_id: paymentId.required(),
      amount_centavos: centavos.min(1).required(),
    })
      .allow(null)
      .required(),
    authorization_expires_at: isoDate.required(),
  }),
  Joi.object({
    recurrence_id: Joi.string().required(),
    authorization: pixInstructionsSchema.allow(null).required(),
    first_payment_txid: Joi.string().allow(null).required(),
  }),
  // What the PSP refuses of the recurrence (a date, an account), naming the field; a PSP without Pix Automático.
  ['INVALID_FIELDS', 'AUTOMATIC_PIX_NOT_SUPPORTED'],
);

/** The merchant cancels: the recurrence is cancelled at the PSP (`PATCH /rec/{idRec}` CANCELADA). */
export interface CancelPixRecurrence {
  subscription_id: string;
}
export interface CancelledPixRecurrence {
  cancelled: true;
  kept_payment_ids?: string[];
}
export const cancelPixRecurrence = defineCommand<CancelPixRecurrence, CancelledPixRecurrence>(
  'pix.recurrence.cancel.v1',
  'pix-adapter',
  Joi.object({ subscription_id: subscriptionId.required() }),
  Joi.object({
    cancelled: Joi.valid(true).required(),
    // The cycles the PSP did not cancel (their debit day had come, or they were debited already): their outcome at the
    // PSP stands and arrives as usual, so they are not cancelled here. Absent from an older adapter.
    kept_payment_ids: Joi.array().items(Joi.string().max(100)).max(1000),
  }),
  // Unknown recurrence; one the PSP already ended (rejected, expired, cancelled by the payer: its event tells why).
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/**
 * Opens one cycle: a `cobr` of the subscription's recurrence, due on `due_date`, for the payment `payment_id` (its
 * txid derived from the pair (subscription, cycle), so a retried open asks the PSP for the same `cobr`). Sent in the
 * window BCB sets before the due date. The cycle's attempts (and, under `three_in_seven_days`, its retries) are the
 * adapter's; each failed attempt is pix.cycle.attempt-failed.v1, the last one also pix.charge.closed.v1 (`failed`,
 * cause `debit_failed`).
 */
export interface OpenPixCycle {
  subscription_id: string;
  payment_id: string;
  /** 1, 2, … */
  cycle: number;
  amount_centavos: number;
  due_date: string;
  description: string | null;
}
export const openPixCycle = defineCommand<OpenPixCycle, { txid: string }>(
  'pix.cycle.open.v1',
  'pix-adapter',
  Joi.object({
    subscription_id: subscriptionId.required(),
    payment_id: paymentId.required(),
    cycle: Joi.number().integer().min(1).required(),
    amount_centavos: centavos.min(1).required(),
    due_date: calendarDate.required(),
    description: Joi.string().max(140).allow(null).required(),
  }),
  Joi.object({ txid: Joi.string().required() }),
  // A recurrence not active at the PSP (cancelled or expired meanwhile: its event tells why); a date or amount refused.
  ['NOT_FOUND', 'INVALID_STATUS', 'INVALID_FIELDS'],
);

/** Sandbox only: the payer's bank acts on a recurrence, as `POST /v1/sandbox/subscriptions/{id}/simulate` asks. */
export const recurrenceSimulations = ['authorize', 'reject', 'payer_cancel', 'fail_next_cycle'] as const;
export type RecurrenceSimulation = (typeof recurrenceSimulations)[number];
export interface SimulatePixRecurrence {
  subscription_id: string;
  outcome: RecurrenceSimulation;
}
export const simulatePixRecurrence = defineCommand<SimulatePixRecurrence, { accepted: true }>(
  'pix.recurrence.simulate.v1',
  'pix-adapter',
  Joi.object({
    subscription_id: subscriptionId.required(),
    outcome: Joi.valid(...recurrenceSimulations).required(),
  }),
  Joi.object({ accepted: Joi.valid(true).required() }),
  ['NOT_FOUND', 'INVALID_STATUS'],
);

/**
 * Sandbox only: moves the recurrence's own clock (the PSP sandbox keeps one per recurrence, as Stripe's test clocks)
 * forward to `to` (São Paulo midnight of that day); what falls due by then at the PSP (cycles debited or failed, the
 * authorization expiring) happens, and its callbacks are sent, before the answer. Answers the recurrence's new today.
 */
export interface AdvancePixRecurrenceClock {
  subscription_id: string;
  to: string;
}
export const advancePixRecurrenceClock = defineCommand<AdvancePixRecurrenceClock, { today: string }>(
  'pix.recurrence.advance.v1',
  'pix-adapter',
  Joi.object({ subscription_id: subscriptionId.required(), to: calendarDate.required() }),
  Joi.object({ today: calendarDate.required() }),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

// --- pix-adapter -> payment -----------------------------------------------------------------------------------------

/** What the PSP said of a recurrence's authorization (`/webhookrec`, or the adapter's own poll of `/rec`). */
export const recurrenceOutcomes = ['authorized', 'rejected', 'cancelled', 'expired'] as const;
export type RecurrenceOutcome = (typeof recurrenceOutcomes)[number];
export interface PixRecurrenceChanged {
  subscription_id: string;
  recurrence_id: string;
  outcome: RecurrenceOutcome;
  /** `cancelled`: who (`payer`: the payer's bank; `psp`; `merchant`: our own cancel, confirmed). Null otherwise. */
  cancelled_by: SubscriptionCanceller | null;
  /** The PSP's reason code (`AP13`, `SLDB`, …) when it gave one. */
  reason_code: string | null;
  /** When the PSP says it happened (in the recurrence's clock in the sandbox). */
  at: string;
}
export const pixRecurrenceChanged = defineEvent<PixRecurrenceChanged>(
  'pix.recurrence.changed.v1',
  Joi.object({
    subscription_id: subscriptionId.required(),
    recurrence_id: Joi.string().required(),
    outcome: Joi.valid(...recurrenceOutcomes).required(),
    cancelled_by: Joi.valid(...subscriptionCancellers)
      .allow(null)
      .required(),
    reason_code: Joi.string().max(8).allow(null).required(),
    at: isoDate.required(),
  }),
);

/** One attempt at debiting a cycle failed; `next_attempt_on` is the retry the adapter asked for, or null: no more. */
export interface PixCycleAttemptFailed {
  subscription_id: string;
  payment_id: string;
  txid: string;
  /** 1 for the debit on the due date, 2 to 4 for the retries. */
  attempt: number;
  /** The payer's bank's reason (`AM02`: no funds, …). */
  reason_code: string | null;
  next_attempt_on: string | null;
}
export const pixCycleAttemptFailed = defineEvent<PixCycleAttemptFailed>(
  'pix.cycle.attempt-failed.v1',
  Joi.object({
    subscription_id: subscriptionId.required(),
    payment_id: paymentId.required(),
    txid: Joi.string().required(),
    attempt: Joi.number().integer().min(1).max(4).required(),
    reason_code: Joi.string().max(8).allow(null).required(),
    next_attempt_on: calendarDate.allow(null).required(),
  }),
);
