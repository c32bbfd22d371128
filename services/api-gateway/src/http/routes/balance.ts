import type { Request, Response } from 'express';
import Joi from 'joi';
import {
  STATEMENT_MONTH_PATTERN,
  balanceTransactionId,
  balanceTransactionStatuses,
  balanceTransactionTypes,
  centavosToBrl,
  getBalance,
  getStatementSummary,
  isoDate,
  listBalanceTransactions,
  pageSchema,
  type BalanceTransaction,
  type PayloadOf,
} from '@gateway/contracts';
import { AppError, invalidFields } from '@gateway/http-errors';
import { identityOf } from '../identity';
import { defineOperation, json, type OperationSpec, type Tag } from '../operation';
import { brl } from '../openapi/response-schemas';
import { balanceRow, STATEMENT_HEADER, statementRow } from '../statement-csv';
import { pageQuery } from '../validation';
import type { RouteContext } from './context';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

const balance = Joi.object({
  available_brl: brl.required().description('Settled money the business may pay out or refund from.'),
  pending_brl: brl
    .required()
    .description('Paid, not settled yet: it becomes available on its `available_on`.'),
  reserved_brl: brl
    .required()
    .description("Promised to a refund or a payout in flight; still the business's until it leaves."),
  blocked_brl: brl.required().description('Held by an open dispute.'),
  updated_at: isoDate.required().description('The last time any part changed.'),
}).id('Balance');

const balanceTransaction = Joi.object({
  id: balanceTransactionId.required(),
  type: Joi.string()
    .valid(...balanceTransactionTypes)
    .required(),
  source_id: Joi.string()
    .required()
    .description('What caused it: a payment, refund, payout, dispute or adjustment id.'),
  amount_brl: brl
    .required()
    .description('Signed gross amount: negative for a refund, a payout or a dispute.'),
  fee_brl: brl.required().description('The fee taken (never negative).'),
  net_brl: brl.required().description('Signed: `amount_brl` less `fee_brl`, what the balance moved by.'),
  status: Joi.string()
    .valid(...balanceTransactionStatuses)
    .required(),
  available_on: isoDate.required().description('When its money is (or was) available.'),
  created_at: isoDate
    .required()
    .description(
      'When it was posted to the books: the month whose statement lists it, and the time the filters and the order use.',
    ),
  occurred_at: isoDate
    .required()
    .description(
      'When the money moved (a payment paid, a refund sent); `available_on` counts from it. Earlier than `created_at` ' +
        'when it was posted late.',
    ),
  description: Joi.string().allow('').required(),
}).id('BalanceTransaction');

export const balanceTransactionsPage = pageQuery(balanceTransactionId).keys({
  type: Joi.string().valid(...balanceTransactionTypes),
  created_gte: isoDate,
  created_lt: isoDate,
});

/** Balance transactions a statement asks the ledger for at a time: a month is streamed, never held whole. */
const STATEMENT_PAGE_SIZE = 100;

/** The public view of a balance transaction: BRL at the edge, `id` for its `balance_transaction_id`. */
function publicBalanceTransaction(transaction: BalanceTransaction) {
  return {
    id: transaction.balance_transaction_id,
    type: transaction.type,
    source_id: transaction.source_id,
    amount_brl: centavosToBrl(transaction.amount_centavos),
    fee_brl: centavosToBrl(transaction.fee_centavos),
    net_brl: centavosToBrl(transaction.net_centavos),
    status: transaction.status,
    available_on: transaction.available_on,
    created_at: transaction.created_at,
    occurred_at: transaction.occurred_at,
    description: transaction.description,
  };
}

/** Never show one business another's money, whatever the ledger answers. */
function ownedBy(businessId: string, transactions: BalanceTransaction[]): BalanceTransaction[] {
  if (transactions.some((transaction) => transaction.business_id !== businessId))
    throw new AppError('INTERNAL_ERROR');
  return transactions;
}

/** A page's rows, one chunk. */
const rowsOf = (transactions: BalanceTransaction[]): string => transactions.map(statementRow).join('');

/** Writes a chunk, waiting while the client's socket is full (a month is streamed at the pace it is read). */
async function write(res: Response, chunk: string): Promise<void> {
  if (chunk === '' || res.write(chunk)) return;
  // A client gone already fired its 'close': waiting for it would never end.
  if (res.destroyed || res.writableEnded) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * The month's statement as CSV (statement-csv.ts): the frame (its first and next month's first instant, its opening
 * balance) from the ledger, then its balance transactions oldest first, a page of
 * STATEMENT_PAGE_SIZE at a time, each page written before the next is asked for. The frame and the first page are
 * read before anything is written, so a refusal or an unavailable ledger is the contract's JSON error; a failure past
 * that point cuts the connection (the error middleware), so a file without its closing row is never taken for whole.
 */
async function serveStatement(req: Request, res: Response, { commands }: RouteContext): Promise<void> {
  const month = req.params.month;
  if (typeof month !== 'string' || !STATEMENT_MONTH_PATTERN.test(month)) throw invalidFields(['month']);
  const businessId = identityOf(res).businessId;
  const summary = await commands.send(getStatementSummary, { business_id: businessId, month }, res);
  if (summary.business_id !== businessId) throw new AppError('INTERNAL_ERROR');
  // Each page is checked when it arrives, the first before anything is written.
  const pageAfter = async (startingAfter: string | null) => {
    const query: PayloadOf<typeof listBalanceTransactions> = {
      business_id: businessId,
      limit: STATEMENT_PAGE_SIZE,
      starting_after: startingAfter,
      created_gte: summary.from,
      created_lt: summary.to,
      oldest_first: true,
    };
    const page = await commands.send(listBalanceTransactions, query, res);
    return { ...page, data: ownedBy(businessId, page.data) };
  };
  let page = await pageAfter(null);
  res
    .status(200)
    .type('text/csv; charset=utf-8')
    .set({
      'Content-Disposition': `attachment; filename="statement-${month}.csv"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  // The closing balance is the opening plus the rows this file holds: a posting that lands in the month while the
  // pages are read shows in a row and in the closing alike, so the file always adds up.
  let closing = summary.opening_balance_centavos;
  const sent = (transactions: BalanceTransaction[]) => {
    for (const transaction of transactions) closing += transaction.net_centavos;
    return rowsOf(transactions);
  };
  await write(res, STATEMENT_HEADER + sent(page.data));
  while (page.has_more && page.data.length > 0) {
    // A client that left gets no more pages asked for it.
    if (res.destroyed) return;
    page = await pageAfter(page.data.at(-1)!.balance_transaction_id);
    await write(res, sent(page.data));
  }
  res.end(
    balanceRow('opening_balance_brl', summary.opening_balance_centavos) +
      balanceRow('closing_balance_brl', closing),
  );
}

/** The document's group of this family's operations. */
export const balanceTag: Tag = {
  name: 'Balance',
  description:
    "The business's balance, the balance transactions that explain it, and its monthly statements (extrato) as CSV.",
};

/** /v1/balance, /v1/balance_transactions and /v1/statements/{month}: what the platform owes the business, and why. */
export const balanceOperations: OperationSpec[] = [
  defineOperation({
    method: 'get',
    path: '/v1/balance',
    operationId: 'getBalance',
    tag: 'Balance',
    area: 'api',
    scope: 'balance:read',
    summary: "The business's balance",
    description:
      'In four parts, in BRL: `available`, `pending` (paid, not settled yet), `reserved` (promised to a refund or a ' +
      'payout in flight) and `blocked` (held by a dispute). All zero before any money moved.',
    commands: [getBalance],
    cli: { command: 'balance get', description: "show the business's balance" },
    sdk: { method: 'balance.get', description: "The business's balance in its four parts." },
    answers: [json(200, 'The balance.', balance)],
    handle: async ({ businessId, send }) => {
      const result = await send(getBalance, { business_id: businessId });
      if (result.business_id !== businessId) throw new AppError('INTERNAL_ERROR');
      return {
        available_brl: centavosToBrl(result.available_centavos),
        pending_brl: centavosToBrl(result.pending_centavos),
        reserved_brl: centavosToBrl(result.reserved_centavos),
        blocked_brl: centavosToBrl(result.blocked_centavos),
        updated_at: result.updated_at,
      };
    },
  }),
  // Newest first, a page at a time (docs/api.md#lists-and-pagination).
  defineOperation({
    method: 'get',
    path: '/v1/balance_transactions',
    operationId: 'listBalanceTransactions',
    tag: 'Balance',
    area: 'api',
    scope: 'balance:read',
    summary: "List the business's balance transactions, newest first",
    description:
      'Each says what one payment, refund, payout, dispute or adjustment did to the balance: its signed gross ' +
      '`amount_brl`, its `fee_brl` and its signed `net_brl`. Filters: `type`, `created_gte` (inclusive), ' +
      '`created_lt` (exclusive).',
    query: [balanceTransactionsPage],
    commands: [listBalanceTransactions],
    cli: {
      command: 'balance transactions',
      description: 'list balance transactions, newest first',
      fields: {
        created_gte: { value: 'iso', description: 'created at or after (ISO date-time)' },
        created_lt: { value: 'iso', description: 'created before (ISO date-time)' },
      },
    },
    sdk: { method: 'balanceTransactions.list', description: "The business's balance transactions." },
    answers: [json(200, 'A page of balance transactions.', pageSchema(balanceTransaction))],
    handle: async ({ query, businessId, send }) => {
      // Only the filters given are in the checked query (unknown parameters are dropped).
      const page = await send(listBalanceTransactions, {
        ...query,
        business_id: businessId,
        starting_after: query.starting_after ?? null,
      });
      return {
        data: ownedBy(businessId, page.data).map(publicBalanceTransaction),
        has_more: page.has_more,
      };
    },
  }),
  {
    method: 'get',
    path: '/v1/statements/{month}',
    operationId: 'getStatement',
    tag: 'Balance',
    area: 'api',
    scope: 'balance:read',
    summary: "A month's statement as CSV",
    description:
      'The balance transactions created in the month (UTC), oldest first, one CSV row each (RFC 4180, UTF-8, header ' +
      '`id,created_at,type,source_id,amount_brl,fee_brl,net_brl,available_on,description`, amounts with a decimal ' +
      'point and two decimals), then `opening_balance_brl` and `closing_balance_brl` rows (label, amount, then empty ' +
      'fields). A description beginning with `=`, `+`, `-`, `@`, tab or CR is prefixed with an apostrophe, so a ' +
      'spreadsheet never runs it as a formula. A malformed month is `INVALID_FIELDS`.',
    params: { month: Joi.string().pattern(STATEMENT_MONTH_PATTERN).description('`YYYY-MM` (UTC).') },
    commands: [getStatementSummary, listBalanceTransactions],
    errors: ['INVALID_FIELDS'],
    sdk: {
      method: 'statements.get',
      description: "A month's statement (`YYYY-MM`, UTC) as CSV text.",
      handWritten: true,
    },
    answers: [{ status: 200, description: 'The statement.', mediaTypes: ['text/csv'] }],
    serve: serveStatement,
  },
];
