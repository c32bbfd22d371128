import Joi from 'joi';
import { defineCommand } from './message';
import { businessId, isoDate, publicId } from './common';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';

/**
 * The ledger's answers to the merchant API (docs/money-model.md): one BRL balance per business in four parts, the
 * balance transactions that explain it, and a month's opening and closing balances. Money in integer centavos; the
 * HTTP edge turns it into BRL.
 */

/** Signed centavos (a refund or a payout is negative), within what a JavaScript number holds exactly. */
const signedCentavos = Joi.number().integer().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
const nonNegativeCentavos = Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER);

/** A business's balance: `available` (spendable), `pending` (paid, not yet settled), `reserved` (promised to a
 * refund or payout in flight, still the business's), `blocked` (held by an open dispute). Only `available` may be
 * below zero: the platform paid out a refund larger than what the business had (docs/money-model.md#refunds). */
export interface Balance {
  business_id: string;
  available_centavos: number;
  pending_centavos: number;
  reserved_centavos: number;
  blocked_centavos: number;
  /** The last time any part changed; the business's creation (or the epoch) before any money moved. */
  updated_at: string;
}
const balanceSchema = Joi.object<Balance>({
  business_id: businessId.required(),
  // Below zero only after a refund that succeeded with less than it available and pending (docs/money-model.md).
  available_centavos: signedCentavos.required(),
  pending_centavos: nonNegativeCentavos.required(),
  reserved_centavos: nonNegativeCentavos.required(),
  blocked_centavos: nonNegativeCentavos.required(),
  updated_at: isoDate.required(),
});

export const balanceTransactionTypes = [
  'payment',
  'refund',
  'payout',
  'dispute',
  'dispute_won',
  'adjustment',
] as const;
export type BalanceTransactionType = (typeof balanceTransactionTypes)[number];
export const balanceTransactionStatuses = ['pending', 'available'] as const;
export type BalanceTransactionStatus = (typeof balanceTransactionStatuses)[number];

/**
 * One line of the merchant's statement: what one source (a payment, refund, payout, dispute or adjustment) did to the
 * balance. `amount` is signed gross, `net` = `amount` − `fee`; the sum of a business's `net` is its four balances.
 */
export interface BalanceTransaction {
  balance_transaction_id: string;
  business_id: string;
  type: BalanceTransactionType;
  /** `pay_`, `ref_`, `po_`, `dsp_` or `adj_` id of what caused it. */
  source_id: string;
  amount_centavos: number;
  fee_centavos: number;
  net_centavos: number;
  status: BalanceTransactionStatus;
  available_on: string;
  /** When it was posted to the books: the month whose statement lists it. */
  created_at: string;
  /** When the money moved (its event's time), from which `available_on` counts; before `created_at` when posted late. */
  occurred_at: string;
  description: string;
}
export const balanceTransactionId = publicId('btx');
const balanceTransactionSchema = Joi.object<BalanceTransaction>({
  balance_transaction_id: balanceTransactionId.required(),
  business_id: businessId.required(),
  type: Joi.valid(...balanceTransactionTypes).required(),
  source_id: Joi.string().max(80).required(),
  amount_centavos: signedCentavos.required(),
  fee_centavos: nonNegativeCentavos.required(),
  net_centavos: signedCentavos.required(),
  status: Joi.valid(...balanceTransactionStatuses).required(),
  available_on: isoDate.required(),
  created_at: isoDate.required(),
  occurred_at: isoDate.required(),
  description: Joi.string().max(500).allow('').required(),
});

export interface GetBalance {
  business_id: string;
}
/** The business's balance; a business with no money moved yet has all four at zero (never NOT_FOUND). */
export const getBalance = defineCommand<GetBalance, Balance>(
  'ledger.balance.get.v1',
  'ledger',
  Joi.object({ business_id: businessId.required() }),
  balanceSchema,
  [],
);

/**
 * A page of the business's balance transactions, newest first (creation time, then id), or oldest first for a
 * statement; filtered by type and by creation time (`created_gte` inclusive, `created_lt` exclusive).
 */
export interface ListBalanceTransactions extends PageQuery {
  business_id: string;
  type?: BalanceTransactionType | null;
  created_gte?: string | null;
  created_lt?: string | null;
  /** Oldest first (a statement's order) instead of newest first. */
  oldest_first?: boolean;
}
export const listBalanceTransactions = defineCommand<ListBalanceTransactions, Page<BalanceTransaction>>(
  'ledger.balance-transactions.list.v1',
  'ledger',
  Joi.object({
    business_id: businessId.required(),
    limit: pageLimit,
    starting_after: balanceTransactionId.allow(null),
    type: Joi.valid(...balanceTransactionTypes).allow(null),
    created_gte: isoDate.allow(null),
    created_lt: isoDate.allow(null),
    oldest_first: Joi.boolean().default(false),
  }),
  pageSchema(balanceTransactionSchema),
  ['NOT_FOUND', 'INVALID_FIELDS'],
);

/** `YYYY-MM` (UTC), from 2000-01 to 9999-12. */
export const STATEMENT_MONTH_PATTERN = /^(2\d{3}|[3-9]\d{3})-(0[1-9]|1[0-2])$/;

/** A month's statement frame: the balance (sum of `net`) before its first instant and after its last. */
export interface StatementSummary {
  business_id: string;
  month: string;
  /** The month's first instant and the next month's, ISO (UTC): the rows are those created in [from, to). */
  from: string;
  to: string;
  opening_balance_centavos: number;
  closing_balance_centavos: number;
}
export interface GetStatementSummary {
  business_id: string;
  month: string;
}
export const getStatementSummary = defineCommand<GetStatementSummary, StatementSummary>(
  'ledger.statement.get.v1',
  'ledger',
  Joi.object({
    business_id: businessId.required(),
    month: Joi.string().pattern(STATEMENT_MONTH_PATTERN).required(),
  }),
  Joi.object<StatementSummary>({
    business_id: businessId.required(),
    month: Joi.string().pattern(STATEMENT_MONTH_PATTERN).required(),
    from: isoDate.required(),
    to: isoDate.required(),
    opening_balance_centavos: signedCentavos.required(),
    closing_balance_centavos: signedCentavos.required(),
  }),
  ['INVALID_FIELDS'],
);
