// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  createAdjustment,
  disputeClosed,
  disputeCreated,
  fundsAssigned,
  fundsReceived,
  fundsReturned,
  createPayout,
  checkRefundReservation,
  createReservation,
  getBalance,
  getPayout,
  getReconciliation,
  getStatementSummary,
  listAdjustments,
  listBalanceTransactions,
  listPayouts,
  listReconciliations,
  paymentConfirmed,
  pixPayoutSettled,
  refundSucceeded,
  setPayoutAccount,
  runReconciliation,
  refundFailed,
  releaseReservation,
  readLedgerEventLog,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { readEventLog } from '@gateway/messaging';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadLedgerConfig, type LedgerConfig } from './config';
import { ledgerConnections, ledgerDatabase, requireLeastPrivilege } from './persistence';
import { PaymentPostingBatches } from './application/payment-posting-batches';
import { postSucceededRefund } from './application/post-succeeded-refund';
import { SettlementSweep } from './application/settlement-sweep';
import { postReceivedFunds } from './application/post-received-funds';
import { postReturnedFunds } from './application/post-returned-funds';
import { postAssignedFunds } from './application/post-assigned-funds';
import { postOpenedDispute } from './application/post-opened-dispute';
import { postClosedDispute } from './application/post-closed-dispute';
import { reservePayout } from './application/reserve-payout';
import { registerPayoutAccount } from './application/register-payout-account';
import { postDirectPayment } from './application/post-direct-payment';
import { reconcileBooks, type ReconcileBooksDeps } from './application/reconcile-books';
import { ReconciliationSchedule } from './application/reconciliation-schedule';
import { ReconciliationGauges } from './application/reconciliation-gauges';
import { handleGetReconciliation } from './handlers/ledger.reconciliation.get.v1';
import { handleListReconciliations } from './handlers/ledger.reconciliation.list.v1';
import { reserveRefund } from './application/reserve-refund';
import { releaseUnopenedRefund } from './application/release-unopened-refund';
import { postFailedRefund } from './application/post-failed-refund';
import { ReservationSweep } from './application/reservation-sweep';
import { handleGetBalance } from './handlers/ledger.balance.get.v1';
import { handleListBalanceTransactions } from './handlers/ledger.balance-transactions.list.v1';
import { handleGetStatementSummary } from './handlers/ledger.statement.get.v1';
import { handleGetPayout } from './handlers/ledger.payout.get.v1';
import { handleListPayouts } from './handlers/ledger.payout.list.v1';
import { handlePixPayoutSettled } from './handlers/pix.payout.settled.v1';
import { postAdjustment } from './application/post-adjustment';
import { handleListAdjustments } from './handlers/ledger.adjustment.list.v1';

export interface LedgerService extends ServiceRuntime {
  settlement: SettlementSweep;
  reconciliation: ReconciliationSchedule | null;
  reconciliationGauges: ReconciliationGauges;
  reservations: ReservationSweep;
}

/** How long the reservation sweep waits for the payment service's answer about one refund. */
const REFUND_CHECK_TIMEOUT_MS = 5000;

export async function startLedgerService(config: LedgerConfig): Promise<LedgerService> {
  // Migrated by the owner of its tables, served as a role that may neither change nor remove what the books hold.
  const connections = await ledgerConnections(config);
  const runtime = await openServiceRuntime({
    service: 'ledger',
    config: { ...config, DATABASE_URL: connections.serveUrl },
    migrationUrl: connections.migrationUrl,
    checkDatabase: requireLeastPrivilege,
    ...ledgerDatabase,
  });
  const { dataSource, logger } = runtime;
  // At start too: what fell due while the service was down settles now.
  const settlement = new SettlementSweep(dataSource, {
    intervalMs: config.SETTLEMENT_SWEEP_INTERVAL_MS,
    logger,
  });
  const paymentDeps = {
    dataSource,
    logger,
    delays: { pix: config.SETTLEMENT_DELAY_PIX, crypto: config.SETTLEMENT_DELAY_CRYPTO },
    afterPosting: () => settlement.nudge(),
  };
  const paymentPostings = new PaymentPostingBatches(paymentDeps);
  // Every replica reports the newest run stored, whichever replica ran it.
  const reconciliationGauges = new ReconciliationGauges(dataSource, {
    intervalMs: config.RECONCILIATION_METRICS_REFRESH_MS,
    logger,
  });
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
    afterRun: () => reconciliationGauges.nudge(),
  };
  await runtime.broker
    .handlers('ledger')
    .handle(getBalance, handleGetBalance(dataSource))
    .handle(listBalanceTransactions, handleListBalanceTransactions(dataSource))
    .handle(getStatementSummary, handleGetStatementSummary(dataSource))
    // Its payouts' events in outbox order, for the webhook dispatcher to find what the broker lost (docs/adr/0040).
    .handle(readLedgerEventLog, (request) => readEventLog(dataSource, request, readLedgerEventLog))
    // Each journal is keyed by its event's id: a redelivered or replayed event posts nothing twice. Payments that
    // arrive together are posted together, each message acked once its own posting is committed.
    .handle(paymentConfirmed, async (event) => {
      // Money paid into the business's own PSP account is never the platform's: only its fee is booked.
      if (event.payment.custody === 'direct') await postDirectPayment(dataSource, event);
      else await paymentPostings.post(event);
    })
    // A refund reserves before it is opened (docs/money-model.md#refunds); its outcome spends or releases it.
    .handle(createReservation, (command) => reserveRefund(dataSource, command))
    .handle(releaseReservation, (command) => releaseUnopenedRefund({ dataSource, logger }, command))
    .handle(refundSucceeded, async (event) => {
      await postSucceededRefund({ dataSource, logger }, event);
    })
    .handle(refundFailed, async (event) => {
      await postFailedRefund(dataSource, event);
    })
    // Money that belongs to no payment yet, in suspense, keyed by the money: booked in once, out once.
    .handle(fundsReceived, async (event) => {
      await postReceivedFunds(dataSource, event);
    })
    // Money credited to a business out of suspense waits and pays a fee as a payment of its rail does.
    .handle(fundsReturned, async (event) => {
      await postReturnedFunds(paymentDeps, event);
    })
    .handle(fundsAssigned, async (event) => {
      await postAssignedFunds(paymentDeps, event);
    })
    // Disputes, keyed by the dispute: opened once, closed once.
    .handle(disputeCreated, async (event) => {
      await postOpenedDispute(dataSource, event);
    })
    .handle(disputeClosed, async (event) => {
      await postClosedDispute(dataSource, event);
    })
    // Payouts: the reservation, the payout and its request to the PIX adapter commit together; its outcome posts once.
    .handle(createPayout, (command, context) =>
      reservePayout(runtime.unitOfWork(createPayout.name), command, context),
    )
    .handle(getPayout, handleGetPayout(dataSource))
    .handle(listPayouts, handleListPayouts(dataSource))
    .handle(setPayoutAccount, (command) => registerPayoutAccount(dataSource, command))
    .handle(pixPayoutSettled, handlePixPayoutSettled(runtime.unitOfWork(pixPayoutSettled.name), logger))
    .handle(runReconciliation, (command, context) =>
      reconcileBooks(
        { ...reconcileDeps, uow: runtime.unitOfWork(runReconciliation.name) },
        { trigger: 'operator', from: command.from ?? null },
        context,
      ),
    )
    .handle(getReconciliation, handleGetReconciliation(dataSource))
    .handle(listReconciliations, handleListReconciliations(dataSource))
    // The operator's adjustments: one journal each, with its reason, once per command and per Idempotency-Key.
    .handle(createAdjustment, (command, context) =>
      postAdjustment(runtime.unitOfWork(createAdjustment.name), command, context),
    )
    .handle(listAdjustments, handleListAdjustments(dataSource))
    .consume();
  settlement.start();
  runtime.onStop('settlement-sweep', () => settlement.stop());
  reconciliationGauges.start();
  runtime.onStop('reconciliation-gauges', () => reconciliationGauges.stop());
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
  const reservations = new ReservationSweep(
    dataSource,
    async ({ refundId, paymentId }) =>
      (
        await runtime.broker.call(
          checkRefundReservation,
          { refund_id: refundId, payment_id: paymentId },
          { timeoutMs: REFUND_CHECK_TIMEOUT_MS },
        )
      ).refund_exists,
    {
      confirmAfterMs: config.RESERVATION_CONFIRM_AFTER_SECONDS * 1000,
      intervalMs: config.RESERVATION_SWEEP_INTERVAL_MS,
      logger,
    },
  );
  reservations.start();
  runtime.onStop('reservation-sweep', () => reservations.stop());
  return { ...runtime, settlement, reconciliation, reconciliationGauges, reservations };
}

if (require.main === module) {
  const config = loadOrExit(loadLedgerConfig);
  runUntilSignal(() => startLedgerService(config), createLogger('ledger', config.LOG_LEVEL));
}
