import Joi from 'joi';
import {
  calendarDate,
  cancelPayment,
  createPayment,
  customerId,
  getCustomer,
  getPayment,
  isoDate,
  listPayments,
  pageSchema,
  pixDueProblems,
  pixDueSchema,
  saoPauloDay,
  listReceivedFunds,
  paymentDescription,
  paymentId,
  paymentMethods,
  paymentStatuses,
  publicPaymentRecord,
  receivedFundsId,
  returnReceivedFunds,
  simulatePayment,
  simulationOutcomes,
  subscriptionId,
  tokens,
  updatePayment,
  type Token,
  type UpdatePayment,
} from '@gateway/contracts';
import { AppError, invalidFields, missingFields } from '@gateway/http-errors';
import { chargeDebtorOf } from '../../domain/charge-debtor';
import { keepPaymentCopy } from '../../application/keep-payment-copy';
import { outdatePaymentCopy } from '../../application/outdate-payment-copy';
import { readPayment } from '../../application/read-payment';
import { readPaymentList } from '../../application/read-payment-list';
import {
  paymentCreatedResponse,
  paymentDetailsResponse,
  paymentUpdatedResponse,
  receivedFundsResponse,
} from '../payment-responses';
import { identityOf } from '../identity';
import { defineOperation, exampleId, json, only, pageOf, type Tag } from '../operation';
import {
  brl,
  calendarDay,
  pixCode,
  cryptoInstructions,
  paymentRecord,
  receivedFunds,
} from '../openapi/response-schemas';
import { amountField, jsonText, pageQuery } from '../validation';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const paymentAmounts = {
  payment_id: paymentId.required(),
  amount: brl.required(),
  fee_brl: brl.required(),
  net_amount_brl: brl.required(),
  status: Joi.string()
    .valid(...paymentStatuses)
    .required(),
};

const paymentCreated = Joi.alternatives()
  .try(
    Joi.object({
      ...paymentAmounts,
      customer_id: customerId.allow(null).required(),
      expires_at: isoDate.required(),
      pix: pixCode.required(),
    }).id('PixPaymentCreated'),
    Joi.object({
      ...paymentAmounts,
      customer_id: customerId.required(),
      due_date: calendarDay.required().description('The due date (`pix.due.date`).'),
      payable_until: calendarDay
        .required()
        .description('The last day it can be paid, in America/Sao_Paulo: it expires after it.'),
      pix: pixCode.required(),
    }).id('PixDueDatePaymentCreated'),
    Joi.object({
      ...paymentAmounts,
      customer_id: customerId.allow(null).required(),
      payment_method: Joi.string().valid('crypto').required(),
      crypto: cryptoInstructions.required(),
    }).id('CryptoPaymentCreated'),
  )
  .match('one');

/** GET /v1/payments/{id}: while `pending` or `processing`, the `pix` or `crypto` object its creation answered. */
const paymentDetails = paymentRecord
  .keys({
    pix: pixCode,
    crypto: cryptoInstructions,
  })
  .id('PaymentDetails');

const paymentUpdated = Joi.object({
  ...paymentAmounts,
  pix: pixCode,
  crypto: cryptoInstructions,
}).id('PaymentUpdated');

const receivedFundsList = pageSchema(receivedFunds);

const simulationAccepted = simulatePayment.resultSchema.id('SimulationAccepted');

const tokenNames = [...tokens, ...tokens.map((token) => token.toUpperCase())];

/**
 * `crypto` is required when `payment_method` is `crypto`: a condition on the object (not on the field), so that the
 * document can state it as JSON Schema's if/then.
 */
export const createPaymentBody = Joi.object({
  payment_method: Joi.string().valid('pix', 'crypto').required(),
  amount: amountField.required(),
  currency: Joi.string().valid('BRL', 'brl'),
  metadata: jsonText.allow(null),
  description: paymentDescription.allow(null),
  customer_id: customerId.allow(null),
  crypto: Joi.any(),
  pix: Joi.object({
    due: pixDueSchema.description(
      'A charge with a due date (API Pix `cobv`; docs/payments.md#pix-charges-with-a-due-date): money in integer ' +
        'centavos, percentages in basis points. Needs `customer_id`, a customer with a name and a valid CPF or CNPJ.',
    ),
  }),
}).when(Joi.object({ payment_method: Joi.valid('crypto').required() }).unknown(), {
  then: Joi.object({
    crypto: Joi.object({
      currency: Joi.string()
        .valid(...tokenNames)
        .required(),
      network: Joi.string().valid('solana').required(),
    }).required(),
  }),
});

/** At least one of the two (MISSING_FIELDS naming both otherwise). */
export const updatePaymentBody = Joi.object({
  amount: amountField,
  metadata: jsonText.allow(null),
}).or('amount', 'metadata');

export const simulateBody = Joi.object({
  outcome: Joi.string()
    .valid(...simulationOutcomes)
    .required(),
  amount: amountField.allow(null),
  paid_on: calendarDate.allow(null),
});

/** A page of payments and the filters of docs/api.md#lists-and-pagination. */
export const paymentsPage = pageQuery(paymentId).keys({
  status: Joi.string().valid(...paymentStatuses),
  method: Joi.string().valid(...paymentMethods),
  created_gte: isoDate,
  created_lt: isoDate,
  subscription_id: subscriptionId.description("Only this subscription's cycles."),
});

export const receivedFundsPage = pageQuery(receivedFundsId);

/** The document's group of this family's operations. */
export const paymentsTag: Tag = {
  name: 'Payments',
  description: 'PIX and stablecoin payments, their changes, cancellation and received funds.',
};

/** /v1/payments and /v1/payments/{id}/received-funds. */
export const paymentOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/payments',
    operationId: 'createPayment',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:write',
    summary: 'Create a payment (PIX or stablecoin)',
    description:
      'PIX: status `processing`, a dynamic BR Code and its QR code, `expires_at` at the top. With `pix.due`, a charge ' +
      'with a due date (API Pix `cobv`): `due_date` and `payable_until` instead of `expires_at`; it needs ' +
      '`customer_id`, a customer with a name and a valid CPF or CNPJ (`422 CUSTOMER_DOCUMENT_REQUIRED` otherwise). ' +
      'Crypto: status `pending`, a Solana Pay link and its QR code, 30 minutes to pay (inside `crypto`).',
    body: {
      name: 'CreatePaymentRequest',
      schema: createPaymentBody,
      codes: { paymentMethod: 'payment_method', amount: ['amount'] },
      examples: {
        pix: {
          summary: 'PIX, R$ 25,00',
          value: {
            payment_method: 'pix',
            amount: 2500,
            currency: 'BRL',
            description: 'Pedido 1001',
            metadata: '{"order_id":"1001"}',
          },
        },
        due: {
          summary:
            'PIX with a due date, R$ 450,00, fine 2 %, interest 1 % a month, R$ 20,00 off until 5 February',
          value: {
            payment_method: 'pix',
            amount: 45000,
            customer_id: exampleId('cust'),
            description: 'Mensalidade de fevereiro',
            pix: {
              due: {
                date: '2030-02-11',
                payable_days_after: 30,
                fine: { percent_bps: 200 },
                interest: { percent_bps: 100, per: 'month', days: 'calendar' },
                discount: { until: [{ date: '2030-02-05', amount: 2000 }] },
              },
            },
          },
        },
        usdc: {
          summary: 'USDC on Solana, R$ 25,00',
          value: { payment_method: 'crypto', amount: 2500, crypto: { currency: 'USDC', network: 'solana' } },
        },
      },
    },
    commands: [createPayment, getCustomer],
    cli: {
      command: 'payments create',
      description: 'create a PIX or crypto payment',
      order: ['amount', 'payment_method', 'crypto.currency', 'customer_id', 'description', 'metadata'],
      fields: {
        amount: { value: 'centavos', description: 'amount in centavos (5000 = R$ 50,00)' },
        payment_method: { flag: 'method', value: 'method', description: 'payment method', default: 'pix' },
        'crypto.currency': {
          flag: 'token',
          value: 'token',
          description: 'crypto token',
          choices: tokens,
          default: 'usdc',
          when: { payment_method: 'crypto' },
        },
        'crypto.network': { fixed: 'solana', when: { payment_method: 'crypto' } },
        customer_id: { flag: 'customer', description: 'one of your customers' },
        description: {
          value: 'text',
          description: "what the payment is for (shown in the payer's bank app)",
        },
        metadata: { value: 'json', description: 'your own data, as JSON text' },
        currency: { skip: true },
        // A due date's rules are an object of objects: through the SDK or the API, not as flags.
        pix: { skip: true },
      },
    },
    sdk: { method: 'payments.create' },
    answers: [json(201, 'The payment, with what the payer needs.', paymentCreated)],
    handle: async ({ body, res, send }, { paymentCopies }) => {
      const identity = identityOf(res);
      // A PIX charge's options on a crypto payment are a mistake, not something to drop in silence.
      if (body.payment_method === 'crypto' && body.pix !== undefined) throw invalidFields(['pix']);
      const due = body.payment_method === 'pix' ? (body.pix?.due ?? null) : null;
      // A due date's rules as API Pix would refuse them, before anything is asked of anyone.
      if (due) {
        if (!body.customer_id) throw missingFields(['customer_id']);
        const problems = pixDueProblems(due, body.amount, saoPauloDay(new Date()));
        if (problems.length > 0) throw invalidFields(problems);
      }
      // The customer must be the business's own: another business's (or none) is NOT_FOUND, before anything is made.
      const customer = body.customer_id
        ? await send(getCustomer, { business_id: identity.businessId, customer_id: body.customer_id })
        : null;
      const debtor = customer && chargeDebtorOf(customer);
      // A cobv names its debtor (API Pix requires one): a customer without a name and a valid CPF/CNPJ cannot be it.
      if (due && !debtor) throw new AppError('CUSTOMER_DOCUMENT_REQUIRED');
      const view = await send(createPayment, {
        business_id: identity.businessId,
        business_name: identity.businessName,
        method: body.payment_method,
        amount_centavos: body.amount,
        metadata: body.metadata ?? null,
        // The body's type is a union by `payment_method`: only its crypto member has `crypto` (a PIX body may carry any
        // `crypto`, ignored, so it is read only when the method says so).
        token: body.payment_method === 'crypto' ? (body.crypto.currency.toLowerCase() as Token) : null,
        customer_id: body.customer_id ?? null,
        description: body.description ?? null,
        debtor,
        ...(due ? { due } : {}),
      });
      // Before the answer: a read right after it is answered from the copy and sees the payment.
      const answer = paymentCreatedResponse(view, due !== null);
      await keepPaymentCopy(paymentCopies, view);
      return answer;
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/payments/{payment_id}',
    operationId: 'getPayment',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:read',
    summary: 'Read a payment',
    description:
      'The payment with its fee, net amount and window end; while `pending` or `processing` also the `pix` or ' +
      '`crypto` object its creation answered (to show the QR code again); once `paid`, who paid (`payer`).',
    params: { payment_id: 'pay' },
    commands: [getPayment],
    cli: { command: 'payments get', description: 'read a payment' },
    sdk: { method: 'payments.get' },
    answers: [json(200, 'The payment.', paymentDetails)],
    handle: async ({ params, businessId, send }, { paymentCopies }) => {
      // From the gateway's copy; from the payment service when the copy cannot answer (docs/adr/0042).
      const view = await readPayment(paymentCopies, businessId, params.payment_id, () =>
        send(getPayment, { business_id: businessId, payment_id: params.payment_id }),
      );
      // Never leak another business's payment, whatever the payment service answers.
      if (view.payment.business_id !== businessId) throw new AppError('NOT_FOUND');
      return paymentDetailsResponse(view);
    },
  }),
  // The business's payments, newest first, a page at a time (docs/api.md#lists-and-pagination).
  defineOperation({
    method: 'get',
    path: '/v1/payments',
    operationId: 'listPayments',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:read',
    summary: "List the business's payments, newest first",
    query: [paymentsPage],
    commands: [listPayments],
    cli: {
      command: 'payments list',
      description: 'list payments, newest first',
      fields: {
        created_gte: { value: 'iso', description: 'created at or after (ISO date-time)' },
        created_lt: { value: 'iso', description: 'created before (ISO date-time)' },
      },
    },
    sdk: { method: 'payments.list' },
    answers: [json(200, 'A page of payments.', pageSchema(paymentRecord))],
    handle: async ({ query, businessId, send }, { paymentCopies }) => {
      // Only the filters given are in the checked query (unknown parameters are dropped).
      const listed = { ...query, business_id: businessId, starting_after: query.starting_after ?? null };
      // From the gateway's copies; from the payment service when they cannot answer (docs/adr/0043).
      const page = await readPaymentList(paymentCopies, listed, () => send(listPayments, listed));
      // Never list another business's payment, whatever the payment service answers.
      if (page.data.some((payment) => payment.business_id !== businessId))
        throw new AppError('INTERNAL_ERROR');
      // Nor another subscription's cycle, nor a payment of none: a payment service older than subscriptions ignores the
      // filter (messages take fields they do not know), and its whole list must not pass for one subscription's.
      if (
        query.subscription_id !== undefined &&
        page.data.some((payment) => payment.subscription_id !== query.subscription_id)
      )
        throw new AppError('INTERNAL_ERROR');
      return { data: page.data.map(publicPaymentRecord), has_more: page.has_more };
    },
  }),
  defineOperation({
    method: 'patch',
    path: '/v1/payments/{payment_id}',
    operationId: 'updatePayment',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:write',
    summary: 'Change the amount or metadata of an open payment',
    description:
      'Only while `pending` or `processing`. A new amount gives a PIX payment a new QR code, and a crypto payment a ' +
      'new reference, link, QR code and 30-minute window.',
    body: {
      name: 'UpdatePaymentRequest',
      schema: updatePaymentBody,
      codes: { amount: ['amount'] },
      examples: only('A new amount, R$ 30,00', { amount: 3000 }),
    },
    params: { payment_id: 'pay' },
    // The body before the path id, as this route always checked them.
    checks: ['body', 'params'],
    commands: [updatePayment],
    cli: {
      command: 'payments update',
      description: 'change the amount or metadata of an open payment (a new QR code, or a new crypto window)',
      fields: {
        amount: { value: 'centavos', description: 'new amount in centavos' },
        metadata: { value: 'json', description: 'new metadata, as JSON text' },
      },
    },
    sdk: { method: 'payments.update' },
    answers: [json(200, 'The payment with its new amounts.', paymentUpdated)],
    handle: async ({ params, body, businessId, send }, { paymentCopies }) => {
      const command: UpdatePayment = { business_id: businessId, payment_id: params.payment_id };
      if (body.amount !== undefined) command.amount_centavos = body.amount;
      if (body.metadata !== undefined) command.metadata = body.metadata;
      await outdatePaymentCopy(paymentCopies, businessId, params.payment_id);
      const view = await send(updatePayment, command);
      if (view.payment.business_id !== businessId) throw new AppError('NOT_FOUND');
      await keepPaymentCopy(paymentCopies, view);
      return paymentUpdatedResponse(view, body.amount !== undefined);
    },
  }),
  // Cancels an open payment: the PIX cob is removed, the crypto request closed (docs/refunds.md).
  defineOperation({
    method: 'post',
    path: '/v1/payments/{payment_id}/cancel',
    operationId: 'cancelPayment',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:write',
    summary: 'Cancel an open payment',
    description:
      'Only while `pending` or `processing`; money arriving afterwards is kept as received funds, never lost.',
    params: { payment_id: 'pay' },
    commands: [cancelPayment],
    cli: { command: 'payments cancel', description: 'cancel an open payment' },
    sdk: { method: 'payments.cancel' },
    answers: [json(200, 'The payment, status `cancelled`.', paymentRecord)],
    handle: async ({ params, businessId, send }, { paymentCopies }) => {
      await outdatePaymentCopy(paymentCopies, businessId, params.payment_id);
      const view = await send(cancelPayment, { business_id: businessId, payment_id: params.payment_id });
      if (view.payment.business_id !== businessId) throw new AppError('NOT_FOUND');
      await keepPaymentCopy(paymentCopies, view);
      return publicPaymentRecord(view.payment);
    },
  }),
  // Late, excess, partial or unmatched money kept for the payment (newest first, a page at a time): what the
  // merchant reconciles by hand.
  defineOperation({
    method: 'get',
    path: '/v1/payments/{payment_id}/received-funds',
    operationId: 'listReceivedFunds',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:read',
    summary: 'List money received outside the happy path (late, excess, partial, unmatched, unreadable)',
    params: { payment_id: 'pay' },
    query: [receivedFundsPage],
    commands: [listReceivedFunds],
    cli: {
      command: 'payments received-funds',
      description:
        'money kept for a payment outside its happy path (late, excess, partial, unmatched, unreadable)',
    },
    sdk: { method: 'payments.receivedFunds' },
    answers: [json(200, 'A page of received funds.', receivedFundsList)],
    handle: async ({ params, query, businessId, send }) => {
      const funds = await send(listReceivedFunds, {
        business_id: businessId,
        payment_id: params.payment_id,
        ...pageOf(query),
      });
      return { data: funds.data.map(receivedFundsResponse), has_more: funds.has_more };
    },
  }),
  // Records kept money as returned to the payer outside the gateway (no body), so no refund returns it again; money a
  // refund returns or returned is INVALID_STATUS.
  defineOperation({
    method: 'post',
    path: '/v1/payments/{payment_id}/received-funds/{funds_id}/return',
    operationId: 'returnReceivedFunds',
    tag: 'Payments',
    area: 'api',
    scope: 'payments:write',
    summary: 'Record received funds as returned to the payer by hand',
    description:
      'No body. Marks money kept for the payment as returned outside the gateway (`status` `returned`, ' +
      '`returned_by` `manual`), so no refund returns it again. Money already returned, or carried by a refund in ' +
      "flight (an excess rides with the refund that completes the payment's refunds), is `INVALID_STATUS`.",
    params: { payment_id: 'pay', funds_id: 'fund' },
    commands: [returnReceivedFunds],
    sdk: {
      method: 'payments.returnReceivedFunds',
      description:
        'Records received funds as returned to the payer outside the gateway, so no refund returns them again. ' +
        'Funds a refund returns (or returned) are refused with INVALID_STATUS.',
    },
    answers: [json(200, 'The received funds, returned by hand.', receivedFunds)],
    handle: async ({ params, businessId, send }) => {
      const funds = await send(returnReceivedFunds, {
        business_id: businessId,
        payment_id: params.payment_id,
        funds_id: params.funds_id,
      });
      return receivedFundsResponse(funds);
    },
  }),
];

/** The document's group of this family's operations. */
export const sandboxTag: Tag = {
  name: 'Sandbox',
  description: 'Drive sandbox payments to an outcome through the real flow.',
};

/** Outside production: /v1/sandbox/payments/{id}/simulate. */
export const sandboxOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/sandbox/payments/{payment_id}/simulate',
    operationId: 'simulatePayment',
    tag: 'Sandbox',
    area: 'sandbox',
    scope: 'payments:write',
    summary: 'Pay, fail or expire a sandbox payment, or dispute a paid one, for real',
    description:
      "`paid` makes the PSP simulator pay the charge (calling the PIX adapter's webhook as a real PSP does) or a " +
      'funded test wallet send the transfer on the local chain; `amount` pays part of it. On a paid PIX payment, ' +
      '`disputed` has the PSP simulator raise a MED (its devolução and callback; `amount` disputes part of it), ' +
      'then `dispute_won` or `dispute_lost` ends the open one. A PIX payment with a due date is paid what is due on the ' +
      'day: `paid_on` (`YYYY-MM-DD`, between its creation and `payable_until`) pays it as of that day, late with its ' +
      'fine and interest or early with its discount, without moving any clock (`INVALID_FIELDS` for any other ' +
      'payment or a day outside that window). Sandbox only.',
    body: {
      name: 'SimulatePaymentRequest',
      schema: simulateBody,
      codes: { amount: ['amount'] },
      examples: {
        paid: { summary: 'Paid in full', value: { outcome: 'paid' } },
        partial: { summary: 'R$ 10,00 paid (partial)', value: { outcome: 'paid', amount: 1000 } },
        failed: { summary: 'Failed', value: { outcome: 'failed' } },
        expired: { summary: 'Expired', value: { outcome: 'expired' } },
      },
    },
    params: { payment_id: 'pay' },
    checks: ['body', 'params'],
    commands: [simulatePayment],
    cli: {
      command: 'payments simulate',
      description:
        'sandbox: have the rail pay it, fail it, move its clock past expiry, or dispute it once paid',
      fields: {
        outcome: { description: 'what happens' },
        amount: { value: 'centavos', description: 'a partial payment (or dispute) of this amount' },
        paid_on: { value: 'date', description: 'a due-date payment paid as of this day (YYYY-MM-DD)' },
      },
    },
    sdk: {
      method: 'sandbox.simulate',
      description:
        'Drives a sandbox payment through its rail: the PSP simulator pays, the local chain transfers, or the clock.',
    },
    answers: [json(202, 'Accepted: the outcome follows as it would in production.', simulationAccepted)],
    handle: ({ params, body, businessId, send }) =>
      send(simulatePayment, {
        business_id: businessId,
        payment_id: params.payment_id,
        outcome: body.outcome,
        amount_centavos: body.amount ?? null,
        ...(body.paid_on ? { paid_on: body.paid_on } : {}),
      }),
  }),
];
