import Joi from 'joi';
import {
  MED_DEFENCE_MAX_LENGTH,
  disputeDefenceText,
  disputeId,
  getDispute,
  listDisputes,
  pageSchema,
  publicDisputeRecord,
  submitDisputeDefence,
  type DisputeRecord,
} from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import { defineOperation, json, pageOf, type Tag } from '../operation';
import * as answers from '../openapi/response-schemas';
import { pageQuery } from '../validation';

export const disputesPage = pageQuery(disputeId);

export const disputeDefenceBody = Joi.object({ text: disputeDefenceText.required() });

/** Never show another business's dispute, whatever the payment service answers. */
function ownDispute(dispute: DisputeRecord, businessId: string): DisputeRecord {
  if (dispute.business_id !== businessId) throw new AppError('NOT_FOUND');
  return dispute;
}

/** The document's group of this family's operations. */
export const disputesTag: Tag = {
  name: 'Disputes',
  description:
    "Disputes of paid PIX payments: a MED (Mecanismo Especial de Devolução) the payer's bank raised. The amount is " +
    'blocked in the balance while open, released when won, debited when lost.',
};

/** /v1/disputes and /v1/disputes/{id} (docs/api.md#disputes). */
export const disputeOperations = [
  defineOperation({
    method: 'get',
    path: '/v1/disputes',
    operationId: 'listDisputes',
    tag: 'Disputes',
    area: 'api',
    scope: 'payments:read',
    summary: "List the business's disputes, newest first",
    query: [disputesPage],
    commands: [listDisputes],
    cli: { command: 'disputes list', description: 'the disputes (MED) of your payments, newest first' },
    sdk: { method: 'disputes.list', description: "The business's disputes (MED), newest first." },
    answers: [json(200, 'A page of disputes.', pageSchema(answers.dispute))],
    handle: async ({ query, businessId, send }) => {
      const page = await send(listDisputes, { business_id: businessId, ...pageOf(query) });
      return {
        data: page.data.map((dispute) => publicDisputeRecord(ownDispute(dispute, businessId))),
        has_more: page.has_more,
      };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/v1/disputes/{dispute_id}',
    operationId: 'getDispute',
    tag: 'Disputes',
    area: 'api',
    scope: 'payments:read',
    summary: 'Read a dispute',
    params: { dispute_id: 'dsp' },
    commands: [getDispute],
    cli: { command: 'disputes get', description: 'read a dispute (MED)' },
    sdk: { method: 'disputes.get' },
    answers: [json(200, 'The dispute.', answers.dispute)],
    handle: async ({ params, businessId, send }) => {
      const dispute = await send(getDispute, { business_id: businessId, dispute_id: params.dispute_id });
      return publicDisputeRecord(ownDispute(dispute, businessId));
    },
  }),
  defineOperation({
    method: 'post',
    path: '/v1/disputes/{dispute_id}/defence',
    operationId: 'submitDisputeDefence',
    tag: 'Disputes',
    area: 'api',
    scope: 'payments:write',
    summary: "Send the business's defence of an open dispute to the PSP",
    description:
      `The text goes to the PSP that holds the MED, as the payer's bank's claim contested (at most ` +
      `${MED_DEFENCE_MAX_LENGTH} characters, no NUL). Only where the PSP takes a defence through its API ` +
      "(the PSP profile's `medDefence`, today Efí): elsewhere `DEFENCE_NOT_SUPPORTED`. A dispute not `open`, or " +
      'already defended, is `INVALID_STATUS`; the PSP out of reach `SERVICE_UNAVAILABLE` (retry). `Idempotency-Key` ' +
      'is honoured.',
    body: {
      name: 'SubmitDisputeDefenceRequest',
      schema: disputeDefenceBody,
      examples: {
        defence: {
          summary: 'The payer received the goods',
          value: {
            text: 'Pedido 1234 entregue em 02/11 ao titular do CPF do pagador; comprovante de entrega assinado.',
          },
        },
      },
    },
    params: { dispute_id: 'dsp' },
    commands: [submitDisputeDefence],
    cli: {
      command: 'disputes defend',
      description: 'send your defence of an open dispute (MED) to the PSP, where it takes one',
      fields: {
        text: { value: 'text', description: `the defence (up to ${MED_DEFENCE_MAX_LENGTH} characters)` },
      },
    },
    sdk: {
      method: 'disputes.defend',
      description: "Sends the business's defence of an open dispute to the PSP.",
    },
    answers: [json(200, 'The dispute, `defence_submitted_at` set.', answers.dispute)],
    handle: async ({ params, body, businessId, send }) => {
      const dispute = await send(submitDisputeDefence, {
        business_id: businessId,
        dispute_id: params.dispute_id,
        text: body.text,
      });
      return publicDisputeRecord(ownDispute(dispute, businessId));
    },
  }),
];
