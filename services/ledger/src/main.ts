// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  getBalance,
  getReconciliation,
  getStatementSummary,
  listBalanceTransactions,
  listReconciliations,
  paymentConfirmed,
  refundSucceeded,
  runReconciliation,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadLedgerConfig, type LedgerConfig } from './config';
import { ledgerDatabase } from './persistence';
import { postConfirmedPayment } from './application/post-confirmed-payment';
import { postSucceededRefund } from './application/post-succeeded-refund';
import { SettlementSweep } from './application/settlement-sweep';
import { reconcileBooks, type ReconcileBooksDeps } from './application/reconcile-books';
import { ReconciliationSchedule } from './application/reconciliation-schedule';
import { handleGetReconciliation } from './handlers/ledger.reconciliation.get.v1';
import { handleListReconciliations } from './handlers/ledger.reconciliation.list.v1';
import { handleGetBalance } from './handlers/ledger.balance.get.v1';
import { handleListBalanceTransactions } from './handlers/ledger.balance-transactions.list.v1';
import { handleGetStatementSummary } from './handlers/ledger.statement.get.v1';

export interface LedgerService extends ServiceRuntime {
  settlement: SettlementSweep;
  reconciliation: ReconciliationSchedule | null;
}

export async function startLedgerService(config: LedgerConfig): Promise<LedgerService> {
  const runtime = await openServiceRuntime({ service: 'ledger', config, ...ledgerDatabase });
  const { dataSource, logger } = runtime;
  // At start too: what fell due while the service was down settles now.
  const settlement = new SettlementSweep(dataSource, {
    intervalMs: config.SETTLEMENT_SWEEP_INTERVAL_MS,
    logger,
  });
  const paymentDeps = {
    dataSource,
    logger,
    delays: { pix: config.SETTLEMENT_DELAY_PIX_SECONDS, crypto: config.SETTLEMENT_DELAY_CRYPTO_SECONDS },
    afterPosting: () => settlement.nudge(),
  };
  const reconcileDeps: ReconcileBooksDeps = {
    dataSource,
    ask: (definition, payload, options) => runtime.broker.call(definition, payload, options),
    logger,
    settings: {
      periodSeconds: config.RECONCILIATION_PERIOD_SECONDS,
      graceSeconds: config.RECONCILIATION_GRACE_SECONDS,
      railTimeoutMs: config.RECONCILIATION_RAIL_TIMEOUT_MS,
      pspOpeningCentavos: config.RECONCILIATION_PSP_OPENING_BALANCE_CENTAVOS,
    },
  };
  await runtime.broker
    .handlers('ledger')
    .handle(getBalance, handleGetBalance(dataSource))
    .handle(listBalanceTransactions, handleListBalanceTransactions(dataSource))
    .handle(getStatementSummary, handleGetStatementSummary(dataSource))
    // Each journal is keyed by its event's id: a redelivered or replayed event posts nothing twice.
    .handle(paymentConfirmed, async (event) => {
      await postConfirmedPayment(paymentDeps, event);
    })
    .handle(refundSucceeded, async (event) => {
      await postSucceededRefund(dataSource, event);
    })
    .handle(runReconciliation, (command, context) =>
      reconcileBooks(
        { ...reconcileDeps, uow: runtime.unitOfWork(runReconciliation.name) },
        { trigger: 'operator', from: command.from ?? null },
        context,
      ),
    )
    .handle(getReconciliation, handleGetReconciliation(dataSource))
    .handle(listReconciliations, handleListReconciliations(dataSource))
    .consume();
  settlement.start();
  runtime.onStop('settlement-sweep', () => settlement.stop());
  const reconciliation =
    config.RECONCILIATION_INTERVAL_SECONDS === 0
      ? null
      : new ReconciliationSchedule(dataSource, reconcileDeps, {
          intervalSeconds: config.RECONCILIATION_INTERVAL_SECONDS,
          logger,
        });
  if (reconciliation !== null) {
    reconciliation.start();
    runtime.onStop('reconciliation-schedule', () => reconciliation.stop());
  }
  return { ...runtime, settlement, reconciliation };
}

if (require.main === module) {
  const config = loadOrExit(loadLedgerConfig);
  runUntilSignal(() => startLedgerService(config), createLogger('ledger', config.LOG_LEVEL));
}
