import Joi from 'joi';
import { assignReceivedFunds, paymentId } from '@gateway/contracts';
import { defineOperation, json, only } from '../operation';
import { operatorReceivedFunds } from './admin';
import { receivedFundsResponse } from '../payment-responses';

// Money that belongs to no payment yet (the books' suspense, docs/money-model.md#suspense): the operator assigns it to
// a payment's business. (Its list is the operator's received-funds list, routes/admin.ts; a return goes through a
// refund or the business's return by hand.)

export const assignFundsBody = Joi.object({
  payment_id: paymentId
    .allow(null)
    .description(
      'The payment whose business is credited; by default the one the money named (required when the gateway ' +
        'does not know that payment).',
    ),
});

export const suspenseOperations = [
  defineOperation({
    method: 'post',
    path: '/admin/v1/received-funds/{funds_id}/assign',
    operationId: 'assignReceivedFunds',
    tag: 'Operator',
    area: 'admin',
    summary: "Assign held received funds to a payment's business",
    description:
      'Money kept outside the happy path (late, excess, partial, unmatched: held by the platform in suspense) is ' +
      "credited to a payment's business: its `available` balance grows by the money's value in BRL (a balance " +
      'transaction of type `adjustment` naming the funds), and the record becomes `assigned`: it is never ' +
      'returned afterwards. By default the payment the money named; `payment_id` names another known payment. ' +
      'Money not held (returned, being returned, assigned), of unknown amount (`unreadable`) or of unknown BRL value ' +
      '(tokens for a payment the gateway does not know) is `INVALID_STATUS`.',
    params: { funds_id: 'fund' },
    body: {
      name: 'AssignReceivedFundsRequest',
      schema: assignFundsBody,
      examples: only('To the payment the money named', {}),
    },
    checks: ['params', 'body'],
    commands: [assignReceivedFunds],
    cli: {
      command: 'admin assign-funds',
      description: "credit held received funds to a payment's business (by default the payment it named)",
      fields: { payment_id: { argument: 'one', description: 'the payment whose business is credited' } },
    },
    answers: [json(200, 'The received funds, assigned.', operatorReceivedFunds)],
    handle: async ({ params, body, send }) => {
      const item = await send(assignReceivedFunds, {
        funds_id: params.funds_id,
        payment_id: body.payment_id ?? null,
      });
      return {
        ...receivedFundsResponse(item),
        payment_id: item.payment_id,
        business_id: item.business_id,
        amount_base_units: item.amount_base_units,
        assigned_payment_id: item.assigned_payment_id ?? null,
        assigned_at: item.assigned_at ?? null,
      };
    },
  }),
];
