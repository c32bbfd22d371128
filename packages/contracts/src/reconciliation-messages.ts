import Joi from 'joi';
import { defineCommand } from './message';
import { baseUnits, isoDate, publicId } from './common';
import { pageLimit, pageSchema, type Page, type PageQuery } from './pages';
import { tokens, type Token } from './public-api';

/**
 * Reconciliation of the books with the money (docs/operating.md#reconciliation-of-the-books): the ledger asks each rail's owner what
 * the rail holds and what moved over a period, compares it with its own accounts (`cash_psp`, `tokens:<token>`) and
 * keeps a report of every difference. Money in integer centavos, token amounts in base units (decimal strings).
 */

const nonNegativeCentavos = Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER);
const signedCentavos = Joi.number().integer().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/** A devolução of a received Pix as the PSP has it (API Pix `Devolucao`). */
export interface PspPixReturn {
  /** Our id for it (`PUT /pix/{e2eid}/devolucao/{id}`). */
  id: string;
  rtr_id: string;
  amount_centavos: number;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  requested_at: string;
  settled_at: string | null;
}

/** A Pix received into the account (API Pix `GET /pix`). */
export interface PspReceivedPix {
  end_to_end_id: string;
  /** The charge it paid; null for a Pix to the key with no charge. */
  txid: string | null;
  amount_centavos: number;
  paid_at: string;
  returns: PspPixReturn[];
}

/** A Pix sent from the account (the PSP's envio list). */
export interface PspSentPix {
  end_to_end_id: string;
  id_envio: string;
  amount_centavos: number;
  status: 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
  requested_at: string;
  settled_at: string | null;
}

/** What the PSP says of a period, and the account's balance when asked. */
export interface PspStatement {
  from: string;
  to: string;
  balance_centavos: number;
  /** When the balance was read. */
  read_at: string;
  received: PspReceivedPix[];
  sent: PspSentPix[];
}

export interface GetPspStatement {
  from: string;
  to: string;
}

const pspReturnSchema = Joi.object<PspPixReturn>({
  id: Joi.string().max(64).required(),
  rtr_id: Joi.string().max(64).required(),
  amount_centavos: nonNegativeCentavos.required(),
  status: Joi.valid('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO').required(),
  requested_at: isoDate.required(),
  settled_at: isoDate.allow(null).required(),
});

/** The PSP's view of [from, to]: Pix received (with their devoluções), Pix sent, and the account balance now. */
export const getPspStatement = defineCommand<GetPspStatement, PspStatement>(
  'pix.psp-statement.get.v1',
  'pix-adapter',
  Joi.object({ from: isoDate.required(), to: isoDate.required() }),
  Joi.object<PspStatement>({
    from: isoDate.required(),
    to: isoDate.required(),
    balance_centavos: signedCentavos.required(),
    read_at: isoDate.required(),
    received: Joi.array()
      .items(
        Joi.object<PspReceivedPix>({
          end_to_end_id: Joi.string().max(64).required(),
          txid: Joi.string().max(64).allow(null).required(),
          amount_centavos: nonNegativeCentavos.required(),
          paid_at: isoDate.required(),
          returns: Joi.array().items(pspReturnSchema).required(),
        }),
      )
      .required(),
    sent: Joi.array()
      .items(
        Joi.object<PspSentPix>({
          end_to_end_id: Joi.string().max(64).required(),
          id_envio: Joi.string().max(64).required(),
          amount_centavos: nonNegativeCentavos.required(),
          status: Joi.valid('EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO').required(),
          requested_at: isoDate.required(),
          settled_at: isoDate.allow(null).required(),
        }),
      )
      .required(),
  }),
  ['INVALID_FIELDS'],
);

/** What the receiving wallet holds of one accepted token, read from the chain. */
export interface WalletTokenBalance {
  token: Token;
  mint: string;
  base_units: string;
  decimals: number;
  /** What transfers seen in the last `recent_seconds` brought (money the books may not have posted yet). */
  recent_base_units: string;
}

export interface GetWalletBalances {
  recent_seconds?: number;
}

export interface WalletBalances {
  wallet: string;
  read_at: string;
  balances: WalletTokenBalance[];
}

/**
 * The receiving wallet's balance of every accepted token (its token accounts' `getTokenAccountBalance`, summed), and
 * what the transfers the watcher recorded in the last `recent_seconds` brought of it.
 */
export const getWalletBalances = defineCommand<GetWalletBalances, WalletBalances>(
  'crypto.wallet-balances.get.v1',
  'solana-watcher',
  Joi.object({ recent_seconds: Joi.number().integer().min(0).max(86_400).default(0) }),
  Joi.object<WalletBalances>({
    wallet: Joi.string().max(64).required(),
    read_at: isoDate.required(),
    balances: Joi.array()
      .items(
        Joi.object<WalletTokenBalance>({
          token: Joi.valid(...tokens).required(),
          mint: Joi.string().max(64).required(),
          base_units: baseUnits.required(),
          decimals: Joi.number().integer().min(0).max(18).required(),
          recent_base_units: baseUnits.required(),
        }),
      )
      .required(),
  }),
  [],
);

export const reconciliationDifferenceKinds = [
  'balance_mismatch',
  'received_not_in_books',
  'received_amount_mismatch',
  'return_not_in_books',
  'sent_not_in_books',
  'in_books_not_at_psp',
  'token_balance_mismatch',
] as const;
export type ReconciliationDifferenceKind = (typeof reconciliationDifferenceKinds)[number];

/**
 * One thing the rail and the books disagree on (or, `pending`, a movement younger than the grace window the books
 * have not caught up with yet). PIX amounts in centavos, token amounts in base units; the side that has nothing is
 * null.
 */
export interface ReconciliationItem {
  kind: ReconciliationDifferenceKind;
  rail: 'pix' | 'solana';
  /** The rail's id of the movement: a txid or endToEndId, a devolução's rtrId, an envio's endToEndId; a token. */
  reference: string | null;
  rail_centavos: number | null;
  books_centavos: number | null;
  rail_base_units: string | null;
  books_base_units: string | null;
  occurred_at: string | null;
  detail: string;
}

export const reconciliationStatuses = ['completed', 'failed'] as const;
export type ReconciliationStatus = (typeof reconciliationStatuses)[number];

export interface TokenHolding {
  token: Token;
  wallet_base_units: string;
  books_base_units: string;
  decimals: number;
}

/** A reconciliation run and its report. */
export interface Reconciliation {
  reconciliation_id: string;
  status: ReconciliationStatus;
  trigger: 'schedule' | 'operator';
  period_from: string;
  period_to: string;
  started_at: string;
  finished_at: string;
  /** Why a rail could not be asked (the run compared nothing); null when completed. */
  failure_reason: string | null;
  /** The PSP account's balance and `cash_psp`'s, when asked; null when the PSP was not reached. */
  psp_balance_centavos: number | null;
  books_cash_psp_centavos: number | null;
  /** What the PSP and the books say moved in the period (received in, sent and returned out). */
  psp_received_centavos: number | null;
  psp_sent_centavos: number | null;
  tokens: TokenHolding[];
  difference_count: number;
  pending_count: number;
  differences: ReconciliationItem[];
  pending: ReconciliationItem[];
}

export const reconciliationId = publicId('rec');

const itemSchema = Joi.object<ReconciliationItem>({
  kind: Joi.valid(...reconciliationDifferenceKinds).required(),
  rail: Joi.valid('pix', 'solana').required(),
  reference: Joi.string().max(128).allow(null).required(),
  rail_centavos: signedCentavos.allow(null).required(),
  books_centavos: signedCentavos.allow(null).required(),
  rail_base_units: Joi.string()
    .pattern(/^-?[0-9]+$/)
    .allow(null)
    .required(),
  books_base_units: Joi.string()
    .pattern(/^-?[0-9]+$/)
    .allow(null)
    .required(),
  occurred_at: isoDate.allow(null).required(),
  detail: Joi.string().max(500).allow('').required(),
});

export const reconciliationSchema = Joi.object<Reconciliation>({
  reconciliation_id: reconciliationId.required(),
  status: Joi.valid(...reconciliationStatuses).required(),
  trigger: Joi.valid('schedule', 'operator').required(),
  period_from: isoDate.required(),
  period_to: isoDate.required(),
  started_at: isoDate.required(),
  finished_at: isoDate.required(),
  failure_reason: Joi.string().max(500).allow(null).required(),
  psp_balance_centavos: signedCentavos.allow(null).required(),
  books_cash_psp_centavos: signedCentavos.allow(null).required(),
  psp_received_centavos: signedCentavos.allow(null).required(),
  psp_sent_centavos: signedCentavos.allow(null).required(),
  tokens: Joi.array()
    .items(
      Joi.object<TokenHolding>({
        token: Joi.valid(...tokens).required(),
        wallet_base_units: Joi.string()
          .pattern(/^-?[0-9]+$/)
          .required(),
        books_base_units: Joi.string()
          .pattern(/^-?[0-9]+$/)
          .required(),
        decimals: Joi.number().integer().min(0).max(18).required(),
      }),
    )
    .required(),
  difference_count: Joi.number().integer().min(0).required(),
  pending_count: Joi.number().integer().min(0).required(),
  differences: Joi.array().items(itemSchema).required(),
  pending: Joi.array().items(itemSchema).required(),
});

/** The longest period one run covers (the PSP is asked for all of it). */
export const RECONCILIATION_PERIOD_MAX_DAYS = 31;

export interface RunReconciliation {
  /** The period's start; absent: the configured period before now. Its end is always now. */
  from?: string | null;
}

/** Runs a reconciliation now and answers its report (a run whose rail could not be asked is `failed`). */
export const runReconciliation = defineCommand<RunReconciliation, Reconciliation>(
  'ledger.reconciliation.run.v1',
  'ledger',
  Joi.object({ from: isoDate.allow(null) }),
  reconciliationSchema,
  ['INVALID_FIELDS'],
);

export interface GetReconciliation {
  reconciliation_id: string;
}
export const getReconciliation = defineCommand<GetReconciliation, Reconciliation>(
  'ledger.reconciliation.get.v1',
  'ledger',
  Joi.object({ reconciliation_id: reconciliationId.required() }),
  reconciliationSchema,
  ['NOT_FOUND'],
);

/** Runs, newest first. */
export type ListReconciliations = PageQuery;
export const listReconciliations = defineCommand<ListReconciliations, Page<Reconciliation>>(
  'ledger.reconciliation.list.v1',
  'ledger',
  Joi.object({ limit: pageLimit, starting_after: reconciliationId.allow(null) }),
  pageSchema(reconciliationSchema),
  ['INVALID_FIELDS'],
);
