import Joi from 'joi';
import {
  MASKED_CNPJ_PATTERN,
  MASKED_CPF_PATTERN,
  PAYER_NAME_MAX_LENGTH,
  businessId,
  createWebhook,
  cryptoInstructionsSchema,
  customerId,
  deleteWebhook,
  eventId,
  getCheckout,
  checkoutSessionStatuses,
  getCustomer,
  getWebhook,
  isoDate,
  pageSchema,
  paymentId,
  paymentMethods,
  paymentStatuses,
  publicId,
  receivedFundsId,
  receivedFundsKinds,
  receivedFundsStatuses,
  refundId,
  refundStatuses,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  sessionId,
  setFeeRule,
  solanaAddress,
  simulatePayment,
  startCheckoutSession,
  tokens,
  webhookEventNames,
  webhookId,
} from '@gateway/contracts';
import { API_KEY_PATTERN, KEY_PREFIX, environments } from '../../domain/api-key';

// The public answers of every route, as joi schemas converted like the request schemas. Where a route answers a
// command's result as it is, its schema is the contract's own result schema; where the gateway shapes the answer
// (BRL amounts, upper-case tokens: domain/payment-responses.ts), it is written here from the contracts' enums and id
// shapes. The live e2e test validates real answers against them, so neither side can drift.

const brl = Joi.number().description('BRL (integer centavos / 100).');
const nullableText = Joi.string().allow(null).required();

const pixCode = Joi.object({
  qr_code: Joi.string().required().description('PNG data URI of the QR code of the BR Code.'),
  copia_e_cola: Joi.string().required().description('The dynamic BR Code (PIX copy-and-paste code).'),
}).id('PixCode');

const cryptoInstructions = Joi.object({
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

const paymentAmounts = {
  payment_id: paymentId.required(),
  amount: brl.required(),
  fee_brl: brl.required(),
  net_amount_brl: brl.required(),
  status: Joi.string()
    .valid(...paymentStatuses)
    .required(),
};

export const paymentCreated = Joi.alternatives()
  .try(
    Joi.object({
      ...paymentAmounts,
      customer_id: customerId.allow(null).required(),
      expires_at: isoDate.required(),
      pix: pixCode.required(),
    }).id('PixPaymentCreated'),
    Joi.object({
      ...paymentAmounts,
      customer_id: customerId.allow(null).required(),
      payment_method: Joi.string().valid('crypto').required(),
      crypto: cryptoInstructions.required(),
    }).id('CryptoPaymentCreated'),
  )
  .match('one');

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
  net_amount_brl: brl.required().description('What the business receives: `amount_brl - fee_brl`.'),
  external_id: nullableText.description('The PSP txid (PIX) or the reference public key (crypto).'),
  failure_code: nullableText,
  failure_reason: nullableText,
  customer_id: customerId.allow(null).required(),
  refunded_amount_brl: brl.required(),
  expires_at: isoDate
    .allow(null)
    .required()
    .description("When the payment window ends (the PIX charge's, or the crypto request's)."),
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

/** GET /v1/payments/{id}: while `pending` or `processing`, the `pix` or `crypto` object its creation answered. */
export const paymentDetails = paymentRecord
  .keys({
    pix: pixCode,
    crypto: cryptoInstructions,
  })
  .id('PaymentDetails');

export const paymentUpdated = Joi.object({
  ...paymentAmounts,
  pix: pixCode,
  crypto: cryptoInstructions,
}).id('PaymentUpdated');

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
      '`held` (not returned), `returning` (a refund in flight carries it), `returned` (by a refund that ' +
        'succeeded, or by hand). Money goes back once: by a refund or by hand, never both. Money one transfer ' +
        'instruction sent naming several payments is kept by each and goes back through one of them: the ' +
        "others' records then show that return.",
    ),
  returned_by: Joi.string()
    .allow(null)
    .required()
    .description('The refund (`ref_...`) that returns it, `manual` when returned by hand, null while held.'),
  returned_at: isoDate.allow(null).required(),
}).id('ReceivedFunds');

export const receivedFundsList = pageSchema(receivedFunds);

export const operatorReceivedFunds = receivedFunds
  .keys({
    payment_id: Joi.string()
      .required()
      .description(
        'The payment the money named (possibly one the gateway does not know: kept as unmatched).',
      ),
    business_id: businessId
      .allow(null)
      .required()
      .description("The payment's business; null when the gateway does not know the payment."),
    amount_base_units: Joi.string()
      .pattern(/^[0-9]+$/)
      .allow(null)
      .required()
      .description(
        'Crypto: the amount in token base units (also when the token is not known); null for PIX.',
      ),
  })
  .id('OperatorReceivedFunds');

export const operatorReceivedFundsList = pageSchema(operatorReceivedFunds);

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

export const simulationAccepted = simulatePayment.resultSchema.id('SimulationAccepted');

const checkoutRecord = getCheckout.resultSchema as Joi.ObjectSchema;
/** Records also carry `url`, where the hosted page is shared (routes/checkouts.ts). */
export const checkout = checkoutRecord
  .keys({ url: Joi.string().uri().required().description('The hosted checkout page.') })
  .id('Checkout');
export const checkoutWithSessions = checkout
  .keys({
    sessions: checkoutRecord.extract('sessions').required(),
    sessions_has_more: checkoutRecord.extract('sessions_has_more').required(),
  })
  .id('CheckoutWithSessions');

export const customer = getCustomer.resultSchema.id('Customer');

export const webhook = getWebhook.resultSchema.id('Webhook');
export const webhookCreated = createWebhook.resultSchema.id('WebhookWithSecret');
export const webhookDeleted = deleteWebhook.resultSchema.id('WebhookDeleted');
export const webhookSecret = rotateWebhookSecret.resultSchema.id('WebhookSecret');
export const deliveryRetried = retryWebhookDelivery.resultSchema.id('DeliveryRetried');
export const webhookTested = sendTestWebhook.resultSchema.id('WebhookTested');

/** The contract leaves a delivery's items open; this is what the dispatcher answers (WebhookDelivery). */
export const deliveriesPage = Joi.object({
  data: Joi.array()
    .items(
      Joi.object({
        delivery_id: publicId('dlv').required(),
        event_id: eventId.required(),
        event_type: Joi.string().required(),
        status: Joi.string().required(),
        attempts: Joi.array()
          .items(
            Joi.object({
              attempted_at: isoDate.required(),
              status_code: Joi.number().integer().allow(null).required(),
              latency_ms: Joi.number().integer().min(0).required(),
              error: nullableText,
              response_body: Joi.string().allow(null, '').required(),
            }),
          )
          .required(),
        next_attempt_at: isoDate.allow(null).required(),
        created_at: isoDate.required(),
      }).id('WebhookDelivery'),
    )
    .required(),
  next_cursor: nullableText.description('Pass as `cursor` for the next page; null on the last one.'),
});

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

/**
 * A payment as an event carries it: the record of its time. Events stored before the record gained its fee, net
 * amount, window end and payer (kept 30 days, and their webhook retries) lack those four fields.
 */
export const eventPayment = paymentRecord
  .fork(['fee_brl', 'net_amount_brl', 'expires_at', 'payer'], (field) => field.optional())
  .id('EventPayment');
export const event = eventOf(
  Joi.string().valid(...webhookEventNames),
  Joi.alternatives().try(eventPayment, eventRefund),
).id('Event');

/** What a `webhook.test` delivery carries: which endpoint was tested. */
export const webhookTestData = Joi.object({ webhook_id: webhookId.required() }).id('WebhookTestData');

export const feeRule = setFeeRule.resultSchema.id('FeeRule');

const environment = Joi.string()
  .valid(...environments)
  .required();
const apiKey = Joi.string().pattern(API_KEY_PATTERN).required().description('Shown once: store it now.');
const keyPrefix = Joi.string().pattern(KEY_PREFIX).required();

export const businessCreated = Joi.object({
  business_id: businessId.required(),
  name: Joi.string().required(),
  environment,
  api_key: apiKey,
  key_prefix: keyPrefix,
  created_at: isoDate.required(),
}).id('BusinessCreated');

export const business = Joi.object({
  business_id: businessId.required(),
  name: Joi.string().required(),
  environment,
  created_at: isoDate.required(),
  api_keys: Joi.array()
    .items(
      Joi.object({
        key_prefix: keyPrefix,
        created_at: isoDate.required(),
        revoked_at: isoDate.allow(null).required(),
      }),
    )
    .required(),
  api_keys_has_more: Joi.boolean().required(),
}).id('Business');

export const apiKeyIssued = Joi.object({
  business_id: businessId.required(),
  api_key: apiKey,
  key_prefix: keyPrefix,
}).id('ApiKeyIssued');

export const apiKeyRevoked = Joi.object({ revoked: Joi.valid(true).required() }).id('ApiKeyRevoked');

export const productCreated = Joi.object({
  product_id: publicId('prod').required(),
  business_id: businessId.required(),
  name: Joi.string().required(),
  description: nullableText,
  price: brl.required(),
  price_centavos: Joi.number().integer().required(),
  created_at: isoDate.required(),
}).id('Product');

const queueCount = (count: string) =>
  Joi.array()
    .items(Joi.object({ queue: Joi.string().required(), [count]: Joi.number().integer().min(0).required() }))
    .required();
export const parkedMessages = Joi.object({
  queues: queueCount('parked'),
  total_parked: Joi.number().integer().min(0).required(),
}).id('ParkedMessages');
export const redrivenMessages = Joi.object({
  queues: queueCount('redriven'),
  total_redriven: Joi.number().integer().min(0).required(),
}).id('RedrivenMessages');

export const checkoutSessionStarted = Joi.object({
  session_id: sessionId.required(),
  status: startCheckoutSession.resultSchema.extract('status'),
  payment: Joi.object({
    method: Joi.string()
      .valid(...paymentMethods)
      .required(),
    expires_at: isoDate.required(),
    pix: pixCode,
    crypto: Joi.object({
      qr_code: Joi.string().required(),
      payment_link: Joi.string().required(),
      amount: Joi.number().required(),
      currency: cryptoInstructions.extract('currency'),
      wallet_address: Joi.string().required(),
    }),
  }).required(),
}).id('CheckoutSessionStarted');

export const checkoutSessionStatus = Joi.object({
  status: Joi.valid(...checkoutSessionStatuses).required(),
  return_url: Joi.string()
    .allow(null)
    .required()
    .description('Where to send the buyer, once `paid`; null before.'),
}).id('CheckoutSessionStatus');

export const liveness = Joi.object({ status: Joi.valid('ok').required() }).id('Liveness');
export const readiness = Joi.object({
  status: Joi.valid('ready', 'not_ready').required(),
  checks: Joi.object()
    .pattern(Joi.string(), Joi.object({ ok: Joi.boolean().required(), detail: Joi.string() }))
    .required()
    .description('One entry per dependency (postgres, redis, rabbitmq, service:<name>).'),
}).id('Readiness');
