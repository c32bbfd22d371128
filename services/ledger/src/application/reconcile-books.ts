import type { DataSource } from 'typeorm';
import {
  getPspStatement,
  getWalletBalances,
  newPublicId,
  RECONCILIATION_PERIOD_MAX_DAYS,
  type CommandDefinition,
  type PspStatement,
  type Reconciliation,
  type WalletBalances,
} from '@gateway/contracts';
import { CommandError, type MessageContext, type UnitOfWork } from '@gateway/messaging';
import { counter, type Logger } from '@gateway/observability';
import { reconcile, statementReferences, type BooksView } from '../domain/reconciliation';
import {
  cashMovementsWrittenIn,
  cashPspAsOf,
  insertReconciliation,
  movementsByReference,
  tokenQuantitiesAsOf,
} from '../persistence';

const runsCounter = counter(
  'ledger_reconciliation_runs_total',
  'Reconciliation runs, by status (completed; failed: a rail could not be asked)',
  ['status'],
);

export interface ReconcileBooksDeps {
  dataSource: DataSource;
  /** Asks a rail's owner (the broker's call). */
  ask: <P, R>(definition: CommandDefinition<P, R>, payload: P, options: { timeoutMs: number }) => Promise<R>;
  logger: Logger;
  /** The inbox of an operator's run: a command delivered again answers the run it made, and runs nothing more. */
  uow?: UnitOfWork;
  settings: {
    periodSeconds: number;
    graceSeconds: number;
    railTimeoutMs: number;
    pspOpeningCentavos: number;
  };
  now?: () => Date;
  /** Called once a run this replica made is stored (the gauges read it: ReconciliationGauges). */
  afterRun?: () => void;
}

export interface ReconcileRequest {
  trigger: 'schedule' | 'operator';
  /** The period's start; absent: `periodSeconds` before now. It ends now. */
  from?: string | null;
}

const MAX_PERIOD_MS = RECONCILIATION_PERIOD_MAX_DAYS * 86_400_000;

/** Why a rail's owner could not answer, for the report (never a stack). */
function reasonOf(rail: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${rail} could not be asked: ${message}`.slice(0, 500);
}

/**
 * A reconciliation run (docs/operating.md#reconciliation-of-the-books): asks the PIX adapter what the PSP says of the period (Pix
 * received, sent, the balance) and the Solana watcher what the wallet holds, reads the books as of those readings,
 * compares (domain/reconciliation.ts) and stores the run with every difference and every pending movement. Reports,
 * never corrects: a difference is an operator's to explain (an `adjustment` journal, with its reason). A rail that
 * cannot be asked makes the run `failed` (stored too, so a missing comparison is seen); nothing is compared then.
 */
export async function reconcileBooks(
  deps: ReconcileBooksDeps,
  request: ReconcileRequest,
  context?: Pick<MessageContext, 'envelope'>,
): Promise<Reconciliation> {
  const inbox = deps.uow !== undefined && context !== undefined ? { uow: deps.uow, context } : null;
  const answered = await inbox?.uow.storedResult<Reconciliation>(inbox.context);
  if (answered !== undefined) return answered.value;
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const { settings } = deps;
  const from =
    request.from == null
      ? new Date(startedAt.getTime() - settings.periodSeconds * 1000)
      : new Date(request.from);
  if (from.getTime() > startedAt.getTime() || startedAt.getTime() - from.getTime() > MAX_PERIOD_MS)
    throw new CommandError(
      'INVALID_FIELDS',
      `"from" must be before now, at most ${RECONCILIATION_PERIOD_MAX_DAYS} days earlier`,
    );
  const graceMs = settings.graceSeconds * 1000;
  const ask = { timeoutMs: settings.railTimeoutMs };
  // The PSP is asked from a grace window earlier: a journal of the period's first minutes may name a Pix paid before.
  const [statement, wallet] = await Promise.allSettled([
    deps.ask(
      getPspStatement,
      { from: new Date(from.getTime() - graceMs).toISOString(), to: startedAt.toISOString() },
      ask,
    ),
    deps.ask(getWalletBalances, { recent_seconds: settings.graceSeconds }, ask),
  ]);
  const failures = [
    statement.status === 'rejected' ? reasonOf('the PIX adapter', statement.reason) : null,
    wallet.status === 'rejected' ? reasonOf('the Solana watcher', wallet.reason) : null,
  ].filter((reason): reason is string => reason !== null);

  const base = {
    reconciliation_id: newPublicId('rec'),
    trigger: request.trigger,
    period_from: from.toISOString(),
    period_to: startedAt.toISOString(),
    started_at: startedAt.toISOString(),
  };
  let run: Reconciliation;
  if (failures.length > 0 || statement.status !== 'fulfilled' || wallet.status !== 'fulfilled') {
    run = {
      ...base,
      status: 'failed',
      finished_at: now().toISOString(),
      failure_reason: failures.join('; '),
      psp_balance_centavos: null,
      books_cash_psp_centavos: null,
      psp_received_centavos: null,
      psp_sent_centavos: null,
      tokens: [],
      difference_count: 0,
      pending_count: 0,
      differences: [],
      pending: [],
    };
  } else {
    const books = await readBooks(deps.dataSource, from, graceMs, statement.value, wallet.value);
    const outcome = reconcile({
      from,
      graceMs,
      pspOpeningCentavos: settings.pspOpeningCentavos,
      statement: statement.value,
      wallet: wallet.value,
      books,
    });
    run = {
      ...base,
      status: 'completed',
      finished_at: now().toISOString(),
      failure_reason: null,
      psp_balance_centavos: statement.value.balance_centavos,
      books_cash_psp_centavos: settings.pspOpeningCentavos + books.cashPspCentavos,
      psp_received_centavos: outcome.pspReceivedCentavos,
      psp_sent_centavos: outcome.pspSentCentavos,
      tokens: outcome.tokens,
      difference_count: outcome.differences.length,
      pending_count: outcome.pending.length,
      differences: outcome.differences,
      pending: outcome.pending,
    };
  }
  // Two deliveries of one command racing both compare; the first to commit is the run, the other answers it.
  const kept = inbox
    ? await inbox.uow.once(inbox.context, async (tx) => {
        await insertReconciliation(tx.manager, run);
        return run;
      })
    : await deps.dataSource.transaction(async (manager) => {
        await insertReconciliation(manager, run);
        return run;
      });
  if (kept.reconciliation_id !== run.reconciliation_id) return kept;
  runsCounter.inc({ status: run.status });
  deps.afterRun?.();
  const log = { reconciliation_id: run.reconciliation_id, differences: run.difference_count };
  if (run.status === 'failed')
    deps.logger.error({ ...log, reason: run.failure_reason }, 'reconciliation failed');
  else if (run.difference_count > 0) deps.logger.warn(log, 'reconciliation found differences');
  else deps.logger.info({ ...log, pending: run.pending_count }, 'reconciliation found no difference');
  return run;
}

/** The books as of each rail's reading, read in one snapshot. */
async function readBooks(
  dataSource: DataSource,
  from: Date,
  graceMs: number,
  statement: PspStatement,
  wallet: WalletBalances,
): Promise<BooksView> {
  const pspRead = new Date(statement.read_at);
  const chainRead = new Date(wallet.read_at);
  return dataSource.transaction('REPEATABLE READ', async (manager) => ({
    cashPspCentavos: await cashPspAsOf(manager, pspRead),
    byReference: await movementsByReference(manager, statementReferences(statement), pspRead),
    referencedInPeriod: await cashMovementsWrittenIn(manager, from, new Date(pspRead.getTime() - graceMs)),
    tokenQuantities: await tokenQuantitiesAsOf(manager, chainRead),
  }));
}
