import Joi from 'joi';
import {
  boundedText,
  createRefund,
  getRefund,
  listRefunds,
  pageSchema,
  publicRefundRecord,
  refundId,
  type RefundRecord,
} from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import { defineOperation, json, pageOf, type Tag } from '../operation';
import * as answers from '../openapi/response-schemas';
import { amountField, pageQuery } from '../validation';
import { outdatePaymentCopy } from '../../application/outdate-payment-copy';

export const createRefundBody = Joi.object({
  amount: amountField.allow(null),
  // An empty reason is no reason.
  reason: boundedText('reason').allow(null, ''),
});

export const refundsPage = pageQuery(refundId);

/** Never show another business's refund, whatever the payment service answers. */
function ownRefund(refund: RefundRecord, businessId: string): RefundRecord {
  if (refund.business_id !== businessId) throw new AppError('NOT_FOUND');
  return refund;
}

/** The document's group of this family's operations. */
export const refundsTag: Tag = {
  name: 'Refunds',
  description: 'Refunds of paid payments (PIX devoluções, token transfers back).',
};

/** /v1/payments/{id}/refunds and /v1/refunds/{id} (docs/refunds.md). */
export const refundOperations = [
  defineOperation({
    method: 'post',
    path: '/v1/payments/{payment_id}/refunds',
    operationId: 'createRefund',
    tag: 'Refunds',
    area: 'api',
    scope: 'refunds:write',
    summary: 'Refund (part of) a paid payment',
    description:
      'Without `amount`, everything still refundable. PIX payments only within 90 days of payment. The fee is ' +
      'not returned. More than the business can cover (available + pending balance) is `INSUFFICIENT_BALANCE`, ' +
      'refused before anything is sent to the PSP or the chain.',
    body: {
      name: 'CreateRefundRequest',
      schema: createRefundBody,
      examples: {
        partial: { summary: 'R$ 10,00 back', value: { amount: 1000, reason: 'Produto devolvido' } },
        full: { summary: 'Everything still refundable', value: {} },
      },
      codes: { amount: ['amount'] },
    },
    // The path id before the body: a refund of a payment that cannot exist is NOT_FOUND whatever the body says.
    params: { payment_id: 'pay' },
    commands: [createRefund],
    cli: {
      command: 'refunds create',
      description: 'refund a paid payment, in whole (default) or in part',
      fields: {
        amount: { value: 'centavos', description: 'refund this much (default: all that is left)' },
        reason: { value: 'text', description: 'why (up to 140 characters)' },
      },
    },
    sdk: { method: 'refunds.create' },
    answers: [json(201, 'The refund, status `pending` until its rail settles it.', answers.refund)],
    handle: async ({ params, body, businessId, send }, { paymentCopies }) => {
      // The payment's copy is read again until the refund settles (docs/adr/0042).
      await outdatePaymentCopy(paymentCopies, businessId, params.payment_id);
      const refund = await send(createRefund, {
        business_id: businessId,
        payment_id: params.payment_id,
        amount_centavos: body.amount ?? null,
        reason: body.reason || null,
      });
      return publicRefundRecord(ownRefund(refund, businessId));
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/refunds/{refund_id}',
    operationId: 'getRefund',
    tag: 'Refunds',
    area: 'api',
    scope: 'refunds:read',
    summary: 'Read a refund',
    params: { refund_id: 'ref' },
    commands: [getRefund],
    cli: { command: 'refunds get', description: 'read a refund' },
    sdk: { method: 'refunds.get' },
    answers: [json(200, 'The refund.', answers.refund)],
    handle: async ({ params, businessId, send }) => {
      const refund = await send(getRefund, { business_id: businessId, refund_id: params.refund_id });
      return publicRefundRecord(ownRefund(refund, businessId));
    },
  }),
  // A payment's refunds, newest first, a page at a time.
  defineOperation({
    method: 'get',
    path: '/v1/payments/{payment_id}/refunds',
    operationId: 'listRefunds',
    tag: 'Refunds',
    area: 'api',
    scope: 'refunds:read',
    summary: "List a payment's refunds, newest first",
    params: { payment_id: 'pay' },
    query: [refundsPage],
    commands: [listRefunds],
    cli: { command: 'refunds list', description: "a payment's refunds, newest first" },
    sdk: { method: 'refunds.list', description: "A payment's refunds." },
    answers: [json(200, 'A page of refunds.', pageSchema(answers.refund))],
    handle: async ({ params, query, businessId, send }) => {
      const page = await send(listRefunds, {
        business_id: businessId,
        payment_id: params.payment_id,
        ...pageOf(query),
      });
      return {
        data: page.data.map((refund) => publicRefundRecord(ownRefund(refund, businessId))),
        has_more: page.has_more,
      };
    },
  }),
];
