import Joi from 'joi';
import {
  createPayout,
  getPayout,
  listPayouts,
  pageSchema,
  payoutId,
  publicPayoutRecord,
  type PayoutRecord,
} from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import { defineOperation, json, pageOf, type Tag } from '../operation';
import * as answers from '../openapi/response-schemas';
import { amountField, pageQuery } from '../validation';

/**
 * The only field a payout takes. The destination is never the API key's to choose: it is the business's registered
 * payout account, and any other field (a key, an account) is ignored like every unknown field.
 */
export const createPayoutBody = Joi.object({ amount: amountField.allow(null) });

export const payoutsPage = pageQuery(payoutId);

/** Never show another business's payout, whatever the ledger answers. */
function ownPayout(payout: PayoutRecord, businessId: string): PayoutRecord {
  if (payout.business_id !== businessId) throw new AppError('NOT_FOUND');
  return payout;
}

/** The document's group of this family's operations. */
export const payoutsTag: Tag = {
  name: 'Payouts',
  description:
    "The business's available money sent by PIX to its own registered payout account (set by the operator).",
};

/** /v1/payouts (docs/api.md#payouts). */
export const payoutOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/payouts',
    operationId: 'createPayout',
    tag: 'Payouts',
    area: 'api',
    scope: 'payouts:write',
    summary: "Pay out available money to the business's payout account",
    description:
      'Without `amount`, everything available. The amount is reserved at once (`reserved_brl` of the balance) and ' +
      "sent by PIX to the business's registered payout account, which no request can name or change: any field " +
      'besides `amount` is ignored. `payout.paid` or `payout.failed` follows; a failed payout makes its amount ' +
      'available again. More than available is `INSUFFICIENT_BALANCE`; no payout account, `NO_PAYOUT_ACCOUNT`.',
    body: {
      name: 'CreatePayoutRequest',
      schema: createPayoutBody,
      examples: {
        partial: { summary: 'R$ 50,00', value: { amount: 5000 } },
        all: { summary: 'Everything available', value: {} },
      },
      codes: { amount: ['amount'] },
    },
    commands: [createPayout],
    cli: {
      command: 'payouts create',
      description: "pay out available money to the business's payout account (default: all of it)",
      fields: { amount: { value: 'centavos', description: 'pay out this much (default: all available)' } },
    },
    sdk: { method: 'payouts.create' },
    answers: [json(201, 'The payout, status `pending` until the PSP settles it.', answers.payout)],
    handle: async ({ body, businessId, send }) => {
      const payout = await send(createPayout, {
        business_id: businessId,
        amount_centavos: body.amount ?? null,
      });
      return publicPayoutRecord(ownPayout(payout, businessId));
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/payouts/{payout_id}',
    operationId: 'getPayout',
    tag: 'Payouts',
    area: 'api',
    scope: 'payouts:read',
    summary: 'Read a payout',
    params: { payout_id: 'po' },
    commands: [getPayout],
    cli: { command: 'payouts get', description: 'read a payout' },
    sdk: { method: 'payouts.get' },
    answers: [json(200, 'The payout.', answers.payout)],
    handle: async ({ params, businessId, send }) => {
      const payout = await send(getPayout, { business_id: businessId, payout_id: params.payout_id });
      return publicPayoutRecord(ownPayout(payout, businessId));
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/payouts',
    operationId: 'listPayouts',
    tag: 'Payouts',
    area: 'api',
    scope: 'payouts:read',
    summary: "List the business's payouts, newest first",
    query: [payoutsPage],
    commands: [listPayouts],
    cli: { command: 'payouts list', description: 'list payouts, newest first' },
    sdk: { method: 'payouts.list', description: "The business's payouts." },
    answers: [json(200, 'A page of payouts.', pageSchema(answers.payout))],
    handle: async ({ query, businessId, send }) => {
      const page = await send(listPayouts, { business_id: businessId, ...pageOf(query) });
      return {
        data: page.data.map((payout) => publicPayoutRecord(ownPayout(payout, businessId))),
        has_more: page.has_more,
      };
    },
  }),
];
