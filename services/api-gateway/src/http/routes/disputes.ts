import {
  disputeId,
  getDispute,
  listDisputes,
  pageSchema,
  publicDisputeRecord,
  type DisputeRecord,
} from '@gateway/contracts';
import { AppError } from '@gateway/http-errors';
import { defineOperation, json, pageOf, type Tag } from '../operation';
import * as answers from '../openapi/response-schemas';
import { pageQuery } from '../validation';

export const disputesPage = pageQuery(disputeId);

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
];
