import Joi from 'joi';
import {
  ADJUSTMENT_REASON_MAX_LENGTH,
  MAX_AMOUNT_CENTAVOS,
  adjustmentCounterAccounts,
  adjustmentId,
  adjustmentKinds,
  adjustmentPlatformAccounts,
  businessId,
  centavosToBrl,
  createAdjustment,
  isoDate,
  listAdjustments,
  pageSchema,
  type AdjustmentRecord,
} from '@gateway/contracts';
import { invalidFields } from '@gateway/http-errors';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_HEADER } from '../idempotency';
import { defineOperation, exampleId, json, pageOf } from '../operation';
import { brl } from '../openapi/response-schemas';
import { pageQuery } from '../validation';
import { existingBusiness } from './admin';

// The operator's adjustments of the books (docs/money-model.md#adjustments): a journal with a reason, for what the
// rails or a mistake did that no event posts.

/**
 * Who asked, as the adjustment records it: the operator API has one credential, the admin token, so it is named as
 * such; the record keeps the name, so a labelled credential can be told apart once there is one.
 */
const ADMIN_TOKEN_REQUESTER = 'admin token';

const adjustment = Joi.object({
  id: adjustmentId.required(),
  type: Joi.string()
    .valid(...adjustmentKinds)
    .required()
    .description(
      "`business`: a business's `available` against a platform account; `platform`: two platform accounts.",
    ),
  business_id: businessId.allow(null).required(),
  amount_brl: brl
    .required()
    .description(
      'Business: signed, positive credits the business. Platform: positive, from credit to debit account.',
    ),
  debit_account: Joi.string().required(),
  credit_account: Joi.string().required(),
  allow_negative_available: Joi.boolean().required(),
  reason: Joi.string().required(),
  requested_by: Joi.string().required().description('The credential that asked (the admin token).'),
  journal_id: Joi.string().required().description("The journal's id in the books."),
  balance_transaction_id: Joi.string()
    .allow(null)
    .required()
    .description("The business's `adjustment` balance transaction; null for a platform adjustment."),
  created_at: isoDate.required(),
}).id('Adjustment');

export const adjustmentBody = Joi.object({
  business_id: businessId.description(
    'The business whose `available` balance is adjusted; absent for a platform adjustment (`debit_account`, `credit_account`).',
  ),
  amount: Joi.number()
    .integer()
    .min(-MAX_AMOUNT_CENTAVOS)
    .max(MAX_AMOUNT_CENTAVOS)
    .invalid(0)
    .required()
    .description(
      'Integer centavos, never 0. Business: positive credits it, negative debits it. Platform: positive.',
    ),
  account: Joi.string()
    .valid(...adjustmentCounterAccounts)
    .description(
      'Business: the platform account on the other side (`platform_adjustments` unless given; `fee_revenue` gives a fee back).',
    ),
  debit_account: Joi.string()
    .valid(...adjustmentPlatformAccounts)
    .description('Platform: the account debited (e.g. `psp_fees` for a tariff the PSP took).'),
  credit_account: Joi.string()
    .valid(...adjustmentPlatformAccounts)
    .description('Platform: the account credited (e.g. `cash_psp`, the money that left the PSP account).'),
  allow_negative_available: Joi.boolean().description(
    'Business debit: may take `available` below zero; without it, a debit over `available` is `INSUFFICIENT_BALANCE`.',
  ),
  reason: Joi.string()
    .max(ADJUSTMENT_REASON_MAX_LENGTH)
    .pattern(/\S/)
    .required()
    .description("Why: the business's statement shows it as the balance transaction's description."),
});
export const adjustmentsPage = pageQuery(adjustmentId);
export const adjustmentsFilter = Joi.object({ business_id: businessId });

function adjustmentView(record: AdjustmentRecord) {
  return {
    id: record.adjustment_id,
    type: record.kind,
    business_id: record.business_id,
    amount_brl: centavosToBrl(record.amount_centavos),
    debit_account: record.debit_account,
    credit_account: record.credit_account,
    allow_negative_available: record.allow_negative_available,
    reason: record.reason,
    requested_by: record.requested_by,
    journal_id: record.journal_id,
    balance_transaction_id: record.balance_transaction_id,
    created_at: record.created_at,
  };
}

export const adjustmentOperations = [
  defineOperation({
    method: 'post',
    path: '/admin/v1/adjustments',
    operationId: 'createAdjustment',
    tag: 'Operator',
    area: 'admin',
    summary: 'Adjust the books: a business balance or between platform accounts',
    description:
      "Posts one balanced, immutable journal with its reason. With `business_id`: the business's `available` is " +
      'credited (positive `amount`) or debited (negative) against `account`, and the business sees a balance ' +
      'transaction of type `adjustment`, available at once, with the reason as its description. Without: ' +
      '`amount` moves from `credit_account` to `debit_account`, e.g. a PSP tariff (`debit_account` `psp_fees`, ' +
      '`credit_account` `cash_psp`), so reconciliation no longer reports it. An unknown business is `NOT_FOUND`. ' +
      `\`${IDEMPOTENCY_KEY_HEADER}\` is honoured: the same request again answers the same adjustment, another ` +
      'request under the key is `IDEMPOTENCY_CONFLICT`.',
    body: {
      name: 'AdjustmentRequest',
      schema: adjustmentBody,
      codes: { amount: ['amount'] },
      examples: {
        credit: {
          summary: 'A goodwill credit to a business',
          value: {
            business_id: exampleId('biz'),
            amount: 1500,
            reason: 'Crédito de cortesia pelo atraso no saque',
          },
        },
        tariff: {
          summary: 'A PSP tariff taken from the account',
          value: {
            amount: 90,
            debit_account: 'psp_fees',
            credit_account: 'cash_psp',
            reason: 'Tarifa do PSP sobre Pix recebidos, extrato de novembro',
          },
        },
      },
    },
    commands: [createAdjustment],
    errors: ['NOT_FOUND'],
    cli: {
      command: 'admin adjust',
      description:
        "adjust the books: a business's available balance, or between platform accounts (with a reason)",
      fields: {
        amount: { value: 'centavos', description: 'integer centavos; negative debits a business' },
        reason: { argument: 'words', description: 'why (the business statement shows it)' },
      },
      idempotencyKey: true,
    },
    answers: [json(201, 'The adjustment, posted.', adjustment)],
    handle: async ({ body, req, send }, { identity }) => {
      const idempotencyKey = req.get(IDEMPOTENCY_KEY_HEADER) ?? null;
      if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey))
        throw invalidFields([IDEMPOTENCY_KEY_HEADER]);
      const business =
        body.business_id === undefined ? null : await existingBusiness(identity, body.business_id);
      return adjustmentView(
        await send(createAdjustment, {
          business_id: business?.id ?? null,
          amount_centavos: body.amount,
          counter_account: body.account ?? null,
          debit_account: body.debit_account ?? null,
          credit_account: body.credit_account ?? null,
          allow_negative_available: body.allow_negative_available ?? false,
          reason: body.reason,
          requested_by: ADMIN_TOKEN_REQUESTER,
          idempotency_key: idempotencyKey,
        }),
      );
    },
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/adjustments',
    operationId: 'listAdjustments',
    tag: 'Operator',
    area: 'admin',
    summary: 'List adjustments, newest first',
    query: [adjustmentsFilter, adjustmentsPage],
    commands: [listAdjustments],
    cli: {
      command: 'admin adjustments',
      description: 'adjustments of the books, newest first (a page)',
      fields: {
        business_id: { flag: 'business', description: "only this business's" },
        limit: { description: 'items per page' },
        starting_after: { description: 'the page after this adjustment id' },
      },
    },
    answers: [json(200, 'A page of adjustments.', pageSchema(adjustment).id('AdjustmentList'))],
    handle: async ({ query, send }) => {
      const page = await send(listAdjustments, { ...pageOf(query), business_id: query.business_id ?? null });
      return { data: page.data.map(adjustmentView), has_more: page.has_more };
    },
  }),
];
