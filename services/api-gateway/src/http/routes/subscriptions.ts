import Joi from 'joi';
import {
  FIRST_CYCLE_MIN_LEAD_DAYS,
  advanceSubscriptionClock,
  authorizationJourneys,
  calendarDate,
  cancelSubscription,
  createSubscription,
  customerId,
  dayNumber,
  getCustomer,
  getSubscription,
  latestDueDay,
  listSubscriptions,
  pageSchema,
  payerAccountSchema,
  paymentDescription,
  publicSubscriptionRecord,
  saoPauloDay,
  simulateSubscription,
  subscriptionId,
  subscriptionIntervals,
  subscriptionRetryPolicies,
  subscriptionSimulations,
  subscriptionStatuses,
  updateSubscription,
  type SubscriptionRecord,
} from '@gateway/contracts';
import { AppError, invalidFields, missingFields } from '@gateway/http-errors';
import { chargeDebtorOf } from '../../domain/charge-debtor';
import { identityOf } from '../identity';
import { defineOperation, exampleId, json, pageOf, type Tag } from '../operation';
import { subscription } from '../openapi/response-schemas';
import { amountField, jsonText, pageQuery } from '../validation';

// Subscriptions by Pix Automático (docs/subscriptions.md; docs/adr/0048-due-date-charges-and-subscriptions.md, sections
// 2 to 4). The payment service owns them and their cycles (each a payment); the PIX adapter the recurrence at the PSP.

/**
 * `amount` (fixed) or `minimum_amount` (varying): one of the two (both is INVALID_FIELDS, checked by the handler: a
 * schema's "not both" the SDK's types cannot state); `payer_account` is checked against the journey.
 */
export const createSubscriptionBody = Joi.object({
  customer_id: customerId.required(),
  amount: amountField.description('A fixed amount per cycle, integer centavos (API Pix `valorRec`).'),
  minimum_amount: amountField.description(
    'Instead of `amount`: the amount varies per cycle, at least this (integer centavos, `valorMinimoRecebedor`).',
  ),
  interval: Joi.string()
    .valid(...subscriptionIntervals)
    .required(),
  start_date: calendarDate
    .required()
    .description(
      "The first cycle's due date (`YYYY-MM-DD`, America/Sao_Paulo): not before today; for `push` and `qr`, at " +
        `least ${FIRST_CYCLE_MIN_LEAD_DAYS} days ahead (BCB: a cycle is sent 2 to 10 days before it is due).`,
    ),
  end_date: calendarDate.allow(null).description('No cycle falls after it; absent or null: until cancelled.'),
  description: paymentDescription.allow(null),
  retry_policy: Joi.string()
    .valid(...subscriptionRetryPolicies)
    .description(
      '`three_in_seven_days`: a failed debit is tried again up to 3 times within 7 days. Default `none`.',
    ),
  authorization: Joi.object({
    journey: Joi.string()
      .valid(...authorizationJourneys)
      .required(),
    payer_account: payerAccountSchema.description("`push` only (required there): the payer's bank account."),
  }).required(),
  metadata: jsonText.allow(null),
}).or('amount', 'minimum_amount');

export const subscriptionsPage = pageQuery(subscriptionId).keys({
  status: Joi.string().valid(...subscriptionStatuses),
  customer_id: customerId,
});

export const simulateSubscriptionBody = Joi.object({
  outcome: Joi.string()
    .valid(...subscriptionSimulations)
    .required(),
});

export const advanceSubscriptionBody = Joi.object({ to: calendarDate.required() });

export const updateSubscriptionBody = Joi.object({
  next_cycle_amount: amountField
    .allow(null)
    .required()
    .description(
      "A varying subscription's next cycle amount, integer centavos, at least its `minimum_amount`; null: the " +
        'minimum again. For that one cycle, and only before its send day (7 days before it is due).',
    ),
});

const simulationAccepted = simulateSubscription.resultSchema.id('SubscriptionSimulationAccepted');

/** Never show another business's subscription, whatever the payment service answers. */
function ownSubscription(record: SubscriptionRecord, businessId: string): SubscriptionRecord {
  if (record.business_id !== businessId) throw new AppError('NOT_FOUND');
  return record;
}

/** The dates the PSP would refuse, or that could not bill: refused before anything is asked of anyone. */
function dateProblems(body: { start_date: string; end_date?: string | null }, journey: string): string[] {
  const today = saoPauloDay(new Date());
  const start = dayNumber(body.start_date)!;
  const earliest = journey === 'qr_with_first_payment' ? today : today + FIRST_CYCLE_MIN_LEAD_DAYS;
  const problems: string[] = [];
  if (start < earliest || start > latestDueDay(today)) problems.push('start_date');
  if (body.end_date && body.end_date < body.start_date) problems.push('end_date');
  return problems;
}

/** The document's group of this family's operations. */
export const subscriptionsTag: Tag = {
  name: 'Subscriptions',
  description:
    'Recurring PIX billing by Pix Automático: the payer authorizes once in their bank app, and each cycle is a ' +
    'payment debited on its due date without a new QR code.',
};

/** /v1/subscriptions (docs/subscriptions.md). */
export const subscriptionOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/subscriptions',
    operationId: 'createSubscription',
    tag: 'Subscriptions',
    area: 'api',
    scope: 'payments:write',
    summary: 'Create a subscription (Pix Automático)',
    description:
      'Status `pending_authorization` until the payer authorizes it: `push` asks their bank (`payer_account` ' +
      'required), `qr` answers a QR code that authorizes, `qr_with_first_payment` one that also pays cycle 1 now ' +
      '(`first_payment_id`; needs `amount`). Money in integer centavos. The customer needs a name and a valid CPF ' +
      'or CNPJ (`422 CUSTOMER_DOCUMENT_REQUIRED`). `Idempotency-Key` is honoured.',
    body: {
      name: 'CreateSubscriptionRequest',
      schema: createSubscriptionBody,
      codes: { amount: ['amount', 'minimum_amount'] },
      examples: {
        monthly: {
          summary: 'R$ 99,90 a month, the first paid with the authorizing QR code',
          value: {
            customer_id: exampleId('cust'),
            amount: 9990,
            interval: 'monthly',
            start_date: '2030-01-10',
            end_date: null,
            description: 'Plano mensal da academia',
            retry_policy: 'three_in_seven_days',
            authorization: { journey: 'qr_with_first_payment' },
          },
        },
        push: {
          summary: "Varying amount, at least R$ 50,00, asked in the payer's bank app",
          value: {
            customer_id: exampleId('cust'),
            minimum_amount: 5000,
            interval: 'monthly',
            start_date: '2030-01-10',
            authorization: {
              journey: 'push',
              payer_account: { ispb: '12345678', branch: '0001', account: '123456-7' },
            },
          },
        },
      },
    },
    commands: [createSubscription, getCustomer],
    cli: {
      command: 'subscriptions create',
      description: 'create a subscription (Pix Automático)',
      order: ['customer_id', 'amount', 'interval', 'start_date', 'authorization.journey'],
      fields: {
        customer_id: { flag: 'customer', description: 'one of your customers (with a name and a CPF/CNPJ)' },
        amount: { value: 'centavos', description: 'fixed amount per cycle in centavos' },
        minimum_amount: {
          value: 'centavos',
          description: 'instead of --amount: the least a varying cycle asks',
        },
        start_date: { value: 'date', description: "the first cycle's due date (YYYY-MM-DD)" },
        end_date: { value: 'date', description: 'no cycle after this day (YYYY-MM-DD)' },
        'authorization.journey': {
          flag: 'journey',
          description: 'how the payer authorizes',
          choices: authorizationJourneys,
          default: 'qr',
        },
        description: { value: 'text', description: "shown in the payer's bank app" },
        metadata: { value: 'json', description: 'your own data, as JSON text' },
        // The payer's bank account is an object: through the SDK or the API, not as flags.
        'authorization.payer_account': { skip: true },
      },
    },
    sdk: { method: 'subscriptions.create', description: 'Creates a subscription (Pix Automático).' },
    answers: [json(201, 'The subscription, `pending_authorization`.', subscription)],
    handle: async ({ body, res, send }) => {
      const identity = identityOf(res);
      const { journey, payer_account: payerAccount } = body.authorization;
      if (body.amount !== undefined && body.minimum_amount !== undefined)
        throw invalidFields(['amount', 'minimum_amount']);
      if (journey === 'push' && !payerAccount) throw missingFields(['authorization.payer_account']);
      if (journey !== 'push' && payerAccount !== undefined)
        throw invalidFields(['authorization.payer_account']);
      if (journey === 'qr_with_first_payment' && body.amount === undefined) throw missingFields(['amount']);
      const problems = dateProblems(body, journey);
      if (problems.length > 0) throw invalidFields(problems);
      // The customer must be the business's own (another's is NOT_FOUND) and able to be the recurrence's debtor.
      const customer = await send(getCustomer, {
        business_id: identity.businessId,
        customer_id: body.customer_id,
      });
      const debtor = chargeDebtorOf(customer);
      if (!debtor) throw new AppError('CUSTOMER_DOCUMENT_REQUIRED');
      const created = await send(createSubscription, {
        business_id: identity.businessId,
        business_name: identity.businessName,
        customer_id: body.customer_id,
        debtor,
        amount_centavos: body.amount ?? null,
        minimum_amount_centavos: body.minimum_amount ?? null,
        interval: body.interval,
        start_date: body.start_date,
        end_date: body.end_date ?? null,
        description: body.description ?? null,
        retry_policy: body.retry_policy ?? 'none',
        journey,
        payer_account: payerAccount ?? null,
        metadata: body.metadata ?? null,
      });
      return publicSubscriptionRecord(ownSubscription(created, identity.businessId));
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/subscriptions',
    operationId: 'listSubscriptions',
    tag: 'Subscriptions',
    area: 'api',
    scope: 'payments:read',
    summary: "List the business's subscriptions, newest first",
    query: [subscriptionsPage],
    commands: [listSubscriptions],
    cli: {
      command: 'subscriptions list',
      description: 'list subscriptions, newest first',
      fields: { customer_id: { flag: 'customer', description: 'only this customer' } },
    },
    sdk: { method: 'subscriptions.list', description: "The business's subscriptions, newest first." },
    answers: [json(200, 'A page of subscriptions.', pageSchema(subscription))],
    handle: async ({ query, businessId, send }) => {
      const page = await send(listSubscriptions, {
        business_id: businessId,
        ...pageOf(query),
        ...(query.status ? { status: query.status } : {}),
        ...(query.customer_id ? { customer_id: query.customer_id } : {}),
      });
      return {
        data: page.data.map((record) => publicSubscriptionRecord(ownSubscription(record, businessId))),
        has_more: page.has_more,
      };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/subscriptions/{subscription_id}',
    operationId: 'getSubscription',
    tag: 'Subscriptions',
    area: 'api',
    scope: 'payments:read',
    summary: 'Read a subscription',
    description: 'Its cycles are payments: `GET /v1/payments?subscription_id=`.',
    params: { subscription_id: 'sub' },
    commands: [getSubscription],
    cli: { command: 'subscriptions get', description: 'read a subscription' },
    sdk: { method: 'subscriptions.get' },
    answers: [json(200, 'The subscription.', subscription)],
    handle: async ({ params, businessId, send }) => {
      const record = await send(getSubscription, {
        business_id: businessId,
        subscription_id: params.subscription_id,
      });
      return publicSubscriptionRecord(ownSubscription(record, businessId));
    },
  }),
  defineOperation({
    method: 'patch',
    path: '/v1/subscriptions/{subscription_id}',
    operationId: 'updateSubscription',
    tag: 'Subscriptions',
    area: 'api',
    scope: 'payments:write',
    summary: "Set a varying subscription's next cycle amount",
    description:
      'Only for a subscription made with `minimum_amount` (`INVALID_FIELDS` otherwise, and under the minimum), while ' +
      '`pending_authorization` or `active` and before the next cycle is sent to the PSP, 7 days before it is due ' +
      "(`INVALID_STATUS` from then on: it asks what it had). The payer's bank refuses a debit over the maximum the " +
      'payer authorized.',
    body: {
      name: 'UpdateSubscriptionRequest',
      schema: updateSubscriptionBody,
      codes: { amount: ['next_cycle_amount'] },
      examples: { next: { summary: 'The next cycle asks R$ 187,40', value: { next_cycle_amount: 18740 } } },
    },
    params: { subscription_id: 'sub' },
    checks: ['body', 'params'],
    commands: [updateSubscription],
    cli: {
      command: 'subscriptions update',
      description: "set a varying subscription's next cycle amount",
      fields: { next_cycle_amount: { value: 'centavos', description: 'the next cycle amount in centavos' } },
    },
    sdk: { method: 'subscriptions.update' },
    answers: [json(200, 'The subscription with its next cycle amount.', subscription)],
    handle: async ({ params, body, businessId, send }) => {
      const record = await send(updateSubscription, {
        business_id: businessId,
        subscription_id: params.subscription_id,
        next_cycle_amount_centavos: body.next_cycle_amount,
      });
      return publicSubscriptionRecord(ownSubscription(record, businessId));
    },
  }),
  defineOperation({
    method: 'post',
    path: '/v1/subscriptions/{subscription_id}/cancel',
    operationId: 'cancelSubscription',
    tag: 'Subscriptions',
    area: 'api',
    scope: 'payments:write',
    summary: 'Cancel a subscription',
    description:
      'Only while `pending_authorization` or `active` (`INVALID_STATUS` otherwise): the recurrence is cancelled at the ' +
      'PSP, and the open cycle not yet due is cancelled with it; a cycle already debited stays paid (refundable). ' +
      'A recurrence the PSP ended already (the payer cancelled it, or it was rejected or expired) is `INVALID_STATUS` ' +
      "too: the subscription ends as the PSP's event says, a moment later.",
    params: { subscription_id: 'sub' },
    commands: [cancelSubscription],
    cli: { command: 'subscriptions cancel', description: 'cancel a subscription' },
    sdk: { method: 'subscriptions.cancel' },
    answers: [json(200, 'The subscription, `cancelled` by the merchant.', subscription)],
    handle: async ({ params, businessId, send }) => {
      const record = await send(cancelSubscription, {
        business_id: businessId,
        subscription_id: params.subscription_id,
      });
      return publicSubscriptionRecord(ownSubscription(record, businessId));
    },
  }),
];

/** Outside production: the payer's bank and the clock of a sandbox subscription (its tag is the payments' Sandbox). */
export const subscriptionSandboxOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/sandbox/subscriptions/{subscription_id}/simulate',
    operationId: 'simulateSubscription',
    tag: 'Sandbox',
    area: 'sandbox',
    scope: 'payments:write',
    summary:
      "Have the sandbox payer's bank authorize, reject or cancel a subscription, or fail its next cycle",
    description:
      '`authorize` and `reject` act on a subscription `pending_authorization`; `payer_cancel` cancels it as the payer ' +
      'would; `fail_next_cycle` makes the next debit fail (no funds), `pay_next_cycle` undoes that before the cycle ' +
      'opens (cycles are debited by default). The outcome follows as events, as in production. Sandbox only.',
    body: {
      name: 'SimulateSubscriptionRequest',
      schema: simulateSubscriptionBody,
      examples: {
        authorize: { summary: 'The payer authorizes', value: { outcome: 'authorize' } },
        fail: { summary: 'The next debit fails', value: { outcome: 'fail_next_cycle' } },
      },
    },
    params: { subscription_id: 'sub' },
    checks: ['body', 'params'],
    commands: [simulateSubscription],
    cli: {
      command: 'subscriptions simulate',
      description: "sandbox: the payer's bank authorizes, rejects, cancels, or fails the next cycle",
      fields: { outcome: { description: 'what happens' } },
    },
    sdk: {
      method: 'sandbox.simulateSubscription',
      description: "Has the sandbox payer's bank act on a subscription, for real at the PSP simulator.",
    },
    answers: [json(202, 'Accepted: the outcome follows as events.', simulationAccepted)],
    handle: ({ params, body, businessId, send }) =>
      send(simulateSubscription, {
        business_id: businessId,
        subscription_id: params.subscription_id,
        outcome: body.outcome,
      }),
  }),
  defineOperation({
    method: 'post',
    path: '/v1/sandbox/subscriptions/{subscription_id}/advance',
    operationId: 'advanceSubscriptionClock',
    tag: 'Sandbox',
    area: 'sandbox',
    scope: 'payments:write',
    summary: "Move a sandbox subscription's clock forward",
    description:
      "Asks the subscription's own clock (and its recurrence's at the PSP simulator) to move to `to`, never back " +
      'nor more than 5 years past `current_date` (`INVALID_FIELDS`), and answers at once, as a test clock does: the move runs in the background, opening each ' +
      'cycle on its send day and debiting (or failing) it on its due date on the way, their payments changing by the ' +
      "usual events; the subscription's `current_date` reaches `to` when it is done (a year of monthly cycles takes " +
      'seconds). Sandbox only.',
    body: {
      name: 'AdvanceSubscriptionClockRequest',
      schema: advanceSubscriptionBody,
      examples: { year: { summary: 'Half a year on', value: { to: '2030-07-10' } } },
    },
    params: { subscription_id: 'sub' },
    checks: ['body', 'params'],
    commands: [advanceSubscriptionClock],
    cli: {
      command: 'subscriptions advance',
      description: "sandbox: move a subscription's clock forward to a day (YYYY-MM-DD)",
      fields: { to: { value: 'date', description: 'the day the clock moves to (YYYY-MM-DD)' } },
    },
    sdk: {
      method: 'sandbox.advanceSubscription',
      description:
        "Moves a sandbox subscription's clock forward, opening and debiting the cycles that fall due.",
    },
    answers: [
      json(202, 'Accepted: the subscription as it stands; its `current_date` moves to `to`.', subscription),
    ],
    handle: async ({ params, body, businessId, send }) => {
      const record = await send(advanceSubscriptionClock, {
        business_id: businessId,
        subscription_id: params.subscription_id,
        to: body.to,
      });
      return publicSubscriptionRecord(ownSubscription(record, businessId));
    },
  }),
];
