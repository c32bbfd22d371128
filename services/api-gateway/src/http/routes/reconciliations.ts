import Joi from 'joi';
import {
  centavosToBrl,
  getReconciliation,
  isoDate,
  listReconciliations,
  pageSchema,
  reconciliationDifferenceKinds,
  reconciliationId,
  reconciliationStatuses,
  runReconciliation,
  tokens,
  type Reconciliation,
  type ReconciliationItem,
} from '@gateway/contracts';
import { defineOperation, json, only, pageOf } from '../operation';
import { brl } from '../openapi/response-schemas';
import { pageQuery } from '../validation';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const baseUnitsText = Joi.string().pattern(/^-?[0-9]+$/);

const reconciliationItem = Joi.object({
  kind: Joi.string()
    .valid(...reconciliationDifferenceKinds)
    .required(),
  rail: Joi.string().valid('pix', 'solana').required(),
  reference: Joi.string()
    .allow(null)
    .required()
    .description("The rail's id of the movement (txid, endToEndId, devolução id, idEnvio) or the token."),
  rail_amount_brl: brl.allow(null).required().description('What the rail says (PIX); negative: money out.'),
  books_amount_brl: brl.allow(null).required().description('What the books say (PIX).'),
  rail_base_units: baseUnitsText.allow(null).required().description('What the wallet holds (tokens).'),
  books_base_units: baseUnitsText.allow(null).required().description('What the books hold (tokens).'),
  occurred_at: isoDate.allow(null).required(),
  detail: Joi.string().allow('').required(),
}).id('ReconciliationItem');

const reconciliation = Joi.object({
  id: reconciliationId.required(),
  status: Joi.string()
    .valid(...reconciliationStatuses)
    .required()
    .description('`failed`: a rail could not be asked, nothing was compared (`failure_reason` says which).'),
  trigger: Joi.string().valid('schedule', 'operator').required(),
  period_from: isoDate.required(),
  period_to: isoDate.required(),
  started_at: isoDate.required(),
  finished_at: isoDate.required(),
  failure_reason: Joi.string().allow(null).required(),
  psp_balance_brl: brl.allow(null).required().description("The PSP account's balance when read."),
  books_cash_psp_brl: brl.allow(null).required().description('The `cash_psp` account at that moment.'),
  psp_received_brl: brl.allow(null).required().description('PIX received at the PSP in the period.'),
  psp_sent_brl: brl
    .allow(null)
    .required()
    .description('PIX sent (payouts) and returned (devoluções) at the PSP in the period.'),
  tokens: Joi.array()
    .items(
      Joi.object({
        token: Joi.string()
          .valid(...tokens)
          .required(),
        wallet_base_units: baseUnitsText.required(),
        books_base_units: baseUnitsText.required(),
        decimals: Joi.number().integer().required(),
      }),
    )
    .required(),
  difference_count: Joi.number().integer().min(0).required(),
  pending_count: Joi.number().integer().min(0).required(),
  differences: Joi.array().items(reconciliationItem).required(),
  pending: Joi.array()
    .items(reconciliationItem)
    .required()
    .description('Movements younger than the grace window the books have not posted yet: money in flight.'),
}).id('Reconciliation');

export const reconciliationBody = Joi.object({
  from: isoDate.description('The period to look back to (at most 31 days); absent: the configured period.'),
});
export const reconciliationsPage = pageQuery(reconciliationId);

const brlOrNull = (centavos: number | null): number | null =>
  centavos === null ? null : centavosToBrl(centavos);

function itemView(item: ReconciliationItem) {
  return {
    kind: item.kind,
    rail: item.rail,
    reference: item.reference,
    rail_amount_brl: brlOrNull(item.rail_centavos),
    books_amount_brl: brlOrNull(item.books_centavos),
    rail_base_units: item.rail_base_units,
    books_base_units: item.books_base_units,
    occurred_at: item.occurred_at,
    detail: item.detail,
  };
}

/** A run as the operator reads it: BRL at the edge, token amounts in base units. */
function reconciliationView(run: Reconciliation) {
  return {
    id: run.reconciliation_id,
    status: run.status,
    trigger: run.trigger,
    period_from: run.period_from,
    period_to: run.period_to,
    started_at: run.started_at,
    finished_at: run.finished_at,
    failure_reason: run.failure_reason,
    psp_balance_brl: brlOrNull(run.psp_balance_centavos),
    books_cash_psp_brl: brlOrNull(run.books_cash_psp_centavos),
    psp_received_brl: brlOrNull(run.psp_received_centavos),
    psp_sent_brl: brlOrNull(run.psp_sent_centavos),
    tokens: run.tokens,
    difference_count: run.difference_count,
    pending_count: run.pending_count,
    differences: run.differences.map(itemView),
    pending: run.pending.map(itemView),
  };
}

/** A run asks two rails' owners: it may take longer than a plain command. */
const RUN_TIMEOUT_MS = 15_000;

/** Reconciliation of the books with the rails (docs/operating.md#reconciliation-of-the-books), in the operator API. */
export const reconciliationOperations = [
  defineOperation({
    method: 'post',
    path: '/admin/v1/reconciliations',
    operationId: 'runReconciliation',
    tag: 'Operator',
    area: 'admin',
    summary: 'Reconcile the books with the PSP and the wallet now',
    description:
      'Asks the PIX adapter what the PSP says of the period (PIX received and sent, the balance) and the Solana ' +
      'watcher what the wallet holds, compares them with `cash_psp` and the token accounts, and answers the stored ' +
      'report. A difference is reported, never corrected.',
    body: {
      name: 'ReconciliationRequest',
      schema: reconciliationBody,
      examples: only('The configured period', {}),
    },
    commands: [runReconciliation],
    cli: {
      command: 'admin reconcile',
      description: 'reconcile the books with the PSP and the wallet now, and show the report',
      fields: { from: { description: 'the period to look back to (ISO date), at most 31 days' } },
    },
    answers: [json(201, 'The run and its report.', reconciliation)],
    handle: async ({ body, send }) =>
      reconciliationView(await send(runReconciliation, { from: body.from ?? null }, RUN_TIMEOUT_MS)),
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/reconciliations/{reconciliation_id}',
    operationId: 'getReconciliation',
    tag: 'Operator',
    area: 'admin',
    summary: 'Read a reconciliation run and its report',
    params: { reconciliation_id: 'rec' },
    commands: [getReconciliation],
    cli: { command: 'admin reconciliation', description: 'a reconciliation run and its report' },
    answers: [json(200, 'The run and its report.', reconciliation)],
    handle: async ({ params, send }) =>
      reconciliationView(await send(getReconciliation, { reconciliation_id: params.reconciliation_id })),
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/reconciliations',
    operationId: 'listReconciliations',
    tag: 'Operator',
    area: 'admin',
    summary: 'List reconciliation runs, newest first',
    query: [reconciliationsPage],
    commands: [listReconciliations],
    cli: {
      command: 'admin reconciliations',
      description: 'reconciliation runs, newest first (a page)',
      fields: {
        limit: { description: 'items per page' },
        starting_after: { description: 'the page after this reconciliation id' },
      },
    },
    answers: [json(200, 'A page of runs.', pageSchema(reconciliation).id('ReconciliationList'))],
    handle: async ({ query, send }) => {
      const page = await send(listReconciliations, pageOf(query));
      return { data: page.data.map(reconciliationView), has_more: page.has_more };
    },
  }),
];
