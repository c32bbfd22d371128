import Joi from 'joi';
import {
  MASKED_CNPJ_PATTERN,
  MASKED_CPF_PATTERN,
  PAYER_NAME_MAX_LENGTH,
  businessId,
  cryptoInstructionsSchema,
  customerId,
  disputeId,
  disputeStatuses,
  eventId,
  isoDate,
  paymentDescription,
  paymentId,
  payoutId,
  payoutStatuses,
  receivedFundsId,
  refundId,
  solanaAddress,
  webhookId,
  tokens,
  paymentMethods,
  paymentStatuses,
  receivedFundsKinds,
  receivedFundsStatuses,
  refundStatuses,
  authorizationJourneys,
  subscriptionCancellationReasons,
  subscriptionCancellers,
  subscriptionId,
  subscriptionIntervals,
  subscriptionRetryPolicies,
  subscriptionStatuses,
} from '@gateway/contracts';

// The answer schemas several parts of the gateway share: the payment and refund records (their routes, and the events
// that carry them), received funds (the business's and the operator's views), the events (GET /v1/events and the
// webhook deliveries, openapi/webhooks.ts) and the pieces those are made of. An answer only one route family gives is
// declared in that family's module (http/routes/<family>.ts), next to its entries. They are joi schemas converted like
// the request schemas; where a route answers a command's result as it is, its schema is the contract's own result
// schema; where the gateway shapes the answer (BRL amounts, upper-case tokens: http/payment-responses.ts) it is written
// from the contracts' enums and id shapes. The live e2e test validates real answers against them, so neither side can
// drift.

export const brl = Joi.number().description('BRL (integer centavos / 100).');
export const nullableText = Joi.string().allow(null).required();

export const pixCode = Joi.object({
  qr_code: Joi.string().required().description('PNG data URI of the QR code of the BR Code.'),
  copia_e_cola: Joi.string().required().description('The dynamic BR Code (PIX copy-and-paste code).'),
}).id('PixCode');

export const cryptoInstructions = Joi.object({
  currency: Joi.string()
    .valid(...tokens.map((token) => token.toUpperCase()))
    .required(),
  network: cryptoInstructionsSchema.extract('network'),
  qr_code: Joi.string().required().description('PNG data URI of the QR code of the payment link.'),
  payment_link: Joi.string().required().description('Solana Pay transfer request URL.'),
  wallet_address: Joi.string().required(),
  amount: Joi.number().required().description('Amount in the token.'),
  expires_at: isoDate.required(),
}).id('CryptoPaymentInstructions');

/** A calendar day, `YYYY-MM-DD`. */
export const calendarDay = Joi.string().pattern(/^\d{4}-\d{2}-\d{2}$/);

export const paymentRecord = Joi.object({
  payment_id: paymentId.required(),
  transaction_id: nullableText.description(
    "The rail's settlement id once paid (PIX endToEndId, Solana signature).",
  ),
  business_id: businessId.required(),
  method: Joi.string()
    .valid(...paymentMethods)
    .required(),
  status: Joi.string()
    .valid(...paymentStatuses)
    .required(),
  amount_brl: brl.required(),
  fee_brl: brl.required().description("The gateway's fee for this payment."),
  net_amount_brl: brl
    .required()
    .description(
      'What the business receives: `amount_brl - fee_brl` (`amount_paid - fee_brl` once a due-date charge is paid).',
    ),
  external_id: nullableText.description('The PSP txid (PIX) or the reference public key (crypto).'),
  failure_code: nullableText,
  failure_reason: nullableText,
  description: paymentDescription
    .allow(null)
    .required()
    .description(
      "What the payment is for, as it was created; a PIX charge shows it in the payer's bank app.",
    ),
  customer_id: customerId.allow(null).required(),
  refunded_amount_brl: brl.required(),
  expires_at: isoDate
    .allow(null)
    .required()
    .description(
      "When the payment window ends (the PIX charge's, or the crypto request's); null for a PIX charge with a due date.",
    ),
  due_date: calendarDay.description(
    'A PIX charge with a due date (`pix.due`): its due date (`YYYY-MM-DD`, America/Sao_Paulo). Only on one.',
  ),
  payable_until: calendarDay
    .allow(null)
    .description(
      'A PIX charge with a due date: the last day it can be paid (the due date and `payable_days_after`, each ' +
        'moved to a business day); it expires after it. Only on one.',
    ),
  amount_paid: brl
    .allow(null)
    .description(
      'A PIX charge with a due date, once paid: what was paid (with fine and interest, less reduction and discount; ' +
        '`amount_brl` stays the original); null until then. Only on one.',
    ),
  amount_parts: Joi.alternatives()
    .try(
      Joi.object({
        original: brl.required(),
        fine: brl.required(),
        interest: brl.required(),
        reduction: brl.required(),
        discount: brl.required(),
      }).id('AmountParts'),
      Joi.valid(null),
    )
    .description(
      'A PIX charge with a due date, once paid: why `amount_paid` differs from the original (API Pix ' +
        '`componentesValor`): original + fine + interest − reduction − discount. Only on one.',
    ),
  subscription_id: subscriptionId
    .allow(null)
    .required()
    .description("A subscription's cycle: the subscription (`sub_...`); null for any other payment."),
  cycle: Joi.number()
    .integer()
    .min(1)
    .allow(null)
    .required()
    .description("A subscription's cycle: its number (1, 2, …); null for any other payment."),
  payer: Joi.alternatives()
    .try(
      Joi.object({
        name: Joi.string().max(PAYER_NAME_MAX_LENGTH).allow(null).required(),
        document_masked: Joi.string()
          .pattern(new RegExp(`${MASKED_CPF_PATTERN.source}|${MASKED_CNPJ_PATTERN.source}`))
          .allow(null)
          .required()
          .description('CPF as `***.456.789-**`, CNPJ as `**.345.678/0001-**`; never the whole number.'),
      })
        .id('PixPayer')
        .description("PIX: the payer's name and document as the PSP reported them; null where it did not."),
      Joi.object({
        address: solanaAddress.required().description('Owner of the token account the transfer debited.'),
      }).id('CryptoPayer'),
      // null as a branch of its own: the document states it as one of the choices, not beside them.
      Joi.valid(null),
    )
    .required()
    .description('Who paid: null until `paid`, and null when the rail did not say.'),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
}).id('Payment');

export const receivedFunds = Joi.object({
  funds_id: receivedFundsId.required(),
  kind: Joi.string()
    .valid(...receivedFundsKinds)
    .required(),
  rail: Joi.string()
    .valid(...paymentMethods)
    .required(),
  reference: Joi.string().required(),
  instruction: Joi.string()
    .allow(null)
    .required()
    .description(
      'Crypto: which transfer instruction of the transaction `reference` carried this money ("2", or "2.0" for an ' +
        'inner one); one transaction may hold several transfers kept for the payment, each its own record. Null for ' +
        'PIX, for what a crypto window collected and for a whole transaction (unreadable, excess).',
    ),
  amount_brl: brl.allow(null).required(),
  amount_token: Joi.number().allow(null).required(),
  detected_at: isoDate.required(),
  status: Joi.string()
    .valid(...receivedFundsStatuses)
    .required()
    .description(
      '`held` (not returned), `returning` (a refund in flight carries it, or the operator is sending it back ' +
        'through its rail), `returned` (by a refund that succeeded, by hand, or by the operator through the ' +
        'rail), `assigned` (the operator credited it to a business: never returned then). Money goes back ' +
        'once: by a refund, by hand or by the operator, never twice. Money one transfer ' +
        'instruction sent naming several payments is kept by each and goes back through one of them: the ' +
        "others' records then show that return.",
    ),
  returned_by: Joi.string()
    .allow(null)
    .required()
    .description(
      'The refund (`ref_...`) that returns it, `manual` when returned by hand, `operator` when the operator ' +
        'sends it back through its rail, null while held.',
    ),
  returned_at: isoDate.allow(null).required(),
  value_brl: brl
    .allow(null)
    .required()
    .description(
      "What the platform holds the money at, in BRL: the PIX amount; tokens that arrived within their payment's " +
        'window at the quote it locked, tokens that arrived outside it at `arrival_quote`. Credited to the business ' +
        '(returned by hand, assigned) as a payment of the rail would be: less the fee, pending until the ' +
        'settlement delay is over. Null when it was not valued (no quote could be had): it cannot be credited.',
    ),
  arrival_quote: Joi.object({
    token_per_brl: Joi.number().required().description('How many tokens one BRL bought at that quote.'),
    quoted_at: isoDate.required(),
  })
    .allow(null)
    .required()
    .description(
      "Tokens that arrived outside their payment's window (late, after it was paid, in another token, naming " +
        'several payments): the quote of their arrival that gave `value_brl`, never the quote the payment locked. ' +
        "Null for PIX and for tokens valued at their payment's own quote or not valued.",
    ),
}).id('ReceivedFunds');

export const refund = Joi.object({
  refund_id: refundId.required(),
  payment_id: paymentId.required(),
  amount_brl: brl.required(),
  status: Joi.string()
    .valid(...refundStatuses)
    .required(),
  reason: nullableText,
  failure_reason: nullableText,
  external_id: nullableText.description('The PIX devolução id or the Solana transaction signature.'),
  returned_funds_id: receivedFundsId
    .allow(null)
    .required()
    .description(
      "The received funds (an overpayment's excess) this refund also returns to the payer besides `amount_brl`: " +
        "the refund that completes the payment's refunds carries the excess still held. Null when none.",
    ),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
}).id('Refund');

/** A dispute (MED): its route answers and the `data` of `dispute.*` events. */
export const dispute = Joi.object({
  dispute_id: disputeId.required(),
  payment_id: paymentId.required(),
  amount_brl: brl
    .required()
    .description("What the payer's bank claims back: blocked in the balance while open."),
  status: Joi.string()
    .valid(...disputeStatuses)
    .required()
    .description(
      '`open` until the MED ends: `won` (the amount is released) or `lost` (it went back to the payer).',
    ),
  reason: nullableText.description(
    'The nature the PSP gave it (`MED_FRAUDE`, `MED_OPERACIONAL`) or its reason.',
  ),
  defence_submitted_at: isoDate
    .allow(null)
    .description(
      "When the business's defence reached the PSP (POST /v1/disputes/{dispute_id}/defence); null until then.",
    ),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
}).id('Dispute');

/** A subscription (Pix Automático): GET /v1/subscriptions/{id}, lists, and the `data` of `subscription.*` events. */
export const subscription = Joi.object({
  subscription_id: subscriptionId.required(),
  customer_id: customerId.required(),
  status: Joi.string()
    .valid(...subscriptionStatuses)
    .required()
    .description(
      '`pending_authorization` until the payer authorizes it in their bank app, `active` then, until `cancelled` ' +
        'or `expired` (an authorization nobody gave in time, or past `end_date`).',
    ),
  amount_brl: brl.allow(null).required().description('The fixed amount of each cycle; null when it varies.'),
  minimum_amount_brl: brl
    .allow(null)
    .required()
    .description(
      'With a varying amount, the least a cycle asks (what a cycle charges unless `next_cycle_amount_brl` says ' +
        'otherwise); null otherwise.',
    ),
  interval: Joi.string()
    .valid(...subscriptionIntervals)
    .required(),
  start_date: calendarDay.required().description("The first cycle's due date (America/Sao_Paulo)."),
  end_date: calendarDay.allow(null).required().description('No cycle falls after it; null: until cancelled.'),
  description: paymentDescription.allow(null).required(),
  retry_policy: Joi.string()
    .valid(...subscriptionRetryPolicies)
    .required(),
  authorization: Joi.object({
    journey: Joi.string()
      .valid(...authorizationJourneys)
      .required(),
    qr_code: Joi.string()
      .allow(null)
      .required()
      .description('`qr`, `qr_with_first_payment`: the QR code to read.'),
    copia_e_cola: Joi.string().allow(null).required(),
    expires_at: isoDate.allow(null).required().description('Until when the payer may authorize with it.'),
  })
    .required()
    .id('SubscriptionAuthorization'),
  first_payment_id: paymentId
    .allow(null)
    .required()
    .description('`qr_with_first_payment`: cycle 1, the payment the same QR code pays.'),
  next_cycle: Joi.number().integer().min(1).allow(null).required(),
  next_due_date: calendarDay.allow(null).required(),
  next_cycle_amount_brl: brl
    .allow(null)
    .required()
    .description(
      'With a varying amount, what the next cycle asks as you set it (`PATCH`); null: its minimum. Cleared once that ' +
        'cycle opens.',
    ),
  current_date: calendarDay
    .required()
    .description("The subscription's today: São Paulo's; in the sandbox its own clock (`advance` moves it)."),
  cancelled_by: Joi.string()
    .valid(...subscriptionCancellers)
    .allow(null)
    .required(),
  cancellation_reason: Joi.string()
    .valid(...subscriptionCancellationReasons)
    .allow(null)
    .required(),
  metadata: Joi.string().allow(null).required(),
  ended_at: isoDate.allow(null).required(),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
}).id('Subscription');

/** `subscription.cycle_retry_scheduled`'s `data`: the subscription, and the cycle's failed attempt and its retry. */
export const subscriptionCycleRetry = subscription
  .keys({
    retry: Joi.object({
      payment_id: paymentId.required(),
      cycle: Joi.number().integer().min(1).required(),
      attempt: Joi.number().integer().min(1).required(),
      reason_code: Joi.string()
        .allow(null)
        .required()
        .description("The payer's bank's reason (`AM04`: no funds)."),
      next_attempt_on: calendarDay.required(),
    }).required(),
  })
  .id('SubscriptionCycleRetry');

/** An event as GET /v1/events returns it and a webhook receives it: `data` is the payment or the refund record. */
export function eventOf(type: Joi.Schema, data: Joi.Schema): Joi.ObjectSchema {
  return Joi.object({
    id: eventId.required().description('Also the `webhook-id` header of its deliveries: dedupe on it.'),
    type: type.required(),
    created_at: isoDate.required(),
    business_id: businessId.required(),
    data: data.required(),
  });
}
/** A refund as an event carries it: events stored before refunds named the funds they carry lack that field. */
export const eventRefund = refund.fork(['returned_funds_id'], (field) => field.optional()).id('EventRefund');

/** A payout: its route answers and the `data` of `payout.*` events. */
export const payout = Joi.object({
  payout_id: payoutId.required(),
  amount_brl: brl.required(),
  status: Joi.string()
    .valid(...payoutStatuses)
    .required()
    .description('`pending` until the PSP settles it; `paid` and `failed` are final.'),
  destination: Joi.object({
    pix_key_masked: Joi.string()
      .required()
      .description("The business's payout PIX key, masked: the API never shows it whole."),
  })
    .required()
    .description("The business's registered payout account at the time of the payout."),
  external_id: nullableText.description('The PIX endToEndId once paid.'),
  failure_reason: nullableText.description('Why the PSP refused or returned it, once failed.'),
  created_at: isoDate.required(),
  updated_at: isoDate.required(),
}).id('Payout');

/**
 * A payment as an event carries it: the record of its time. Events stored before the record gained its fee, net
 * amount, window end and payer (kept 30 days, and their webhook retries) lack those four fields, and events stored before
 * payments had a description lack it.
 */
export const eventPayment = paymentRecord
  .fork(['fee_brl', 'net_amount_brl', 'expires_at', 'payer', 'description'], (field) => field.optional())
  .id('EventPayment');

/** What a `webhook.test` delivery carries: which endpoint was tested. */
export const webhookTestData = Joi.object({ webhook_id: webhookId.required() }).id('WebhookTestData');
