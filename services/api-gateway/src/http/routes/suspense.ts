import Joi from 'joi';
import { assignReceivedFunds, boundedText, paymentId, returnHeldFunds } from '@gateway/contracts';
import { defineOperation, json, only } from '../operation';
import { operatorReceivedFunds } from './admin';
import { operatorReceivedFundsResponse } from '../payment-responses';

// Money that belongs to no payment yet (the books' suspense, docs/money-model.md#suspense): the operator assigns it to
// a payment's business, or sends it back to its payer through the rail. (Its list is the operator's received-funds
// list, routes/admin.ts; a business returns it with a refund or records it returned by hand.)

export const assignFundsBody = Joi.object({
  payment_id: paymentId
    .allow(null)
    .description(
      'The payment whose business is credited; by default the one the money named (required when the gateway ' +
        'does not know that payment).',
    ),
});

export const returnFundsBody = Joi.object({
  reason: boundedText('reason')
    .allow(null)
    .description(
      "Why the money goes back: the devolução's `descricao` at the PSP (PIX; never on chain). Sandbox: " +
        '`simulate:fail` makes the PSP simulator or the local chain fail the return.',
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
      "credited to a payment's business as a payment of its rail would be: its `pending` balance grows by the " +
      "money's value in BRL less the business's fee for that rail, available after the rail's settlement delay (a " +
      'balance transaction of type `adjustment` naming the funds), and the record becomes `assigned`: it is never ' +
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
    handle: async ({ params, body, send }) =>
      operatorReceivedFundsResponse(
        await send(assignReceivedFunds, { funds_id: params.funds_id, payment_id: body.payment_id ?? null }),
      ),
  }),
  defineOperation({
    method: 'post',
    path: '/admin/v1/received-funds/{funds_id}/return',
    operationId: 'returnHeldFunds',
    tag: 'Operator',
    area: 'admin',
    summary: 'Send held received funds back to their payer through the rail',
    description:
      'Money kept outside the happy path (late, excess, partial, unmatched: held by the platform in suspense) goes ' +
      'back to whoever paid it, by the rail it came by: a devolução of the Pix (`PUT /pix/{e2eid}/devolucao/{id}` ' +
      "at the PSP, for the funds' amount), or a token transfer to the owner of the token account that paid. The " +
      'answer comes at once, with the funds `returning`; once the rail confirms they are `returned` (`returned_by` ' +
      "`operator`, `return_reference` the devolução id or the signature), and the money leaves the books' suspense " +
      "and the platform's holdings. If the rail fails, the funds are `held` again with `return_failure_reason`, and " +
      'can be returned again. Money kept for a payment the gateway does not know (`business_id` null) goes back the ' +
      'same way; no business is credited or debited. Asking again while they are returning (or once returned) ' +
      'answers them as they stand: one return on the rail; so does asking through another record of the same money ' +
      '(one transfer that named several payments is kept by each, and goes back once). Money assigned, returned by ' +
      'hand or by a refund, carried by a refund in flight, or of unknown amount (`unreadable`) is `INVALID_STATUS`.',
    params: { funds_id: 'fund' },
    body: {
      name: 'ReturnHeldFundsRequest',
      schema: returnFundsBody,
      examples: only('No reason', {}),
    },
    checks: ['params', 'body'],
    commands: [returnHeldFunds],
    cli: {
      command: 'admin return-funds',
      description:
        'send held received funds back to their payer through the rail (a PIX devolução, a token transfer)',
    },
    answers: [json(200, 'The received funds, returning (or as they stand).', operatorReceivedFunds)],
    handle: async ({ params, body, send }) =>
      operatorReceivedFundsResponse(
        await send(returnHeldFunds, { funds_id: params.funds_id, reason: body.reason ?? null }),
      ),
  }),
];
