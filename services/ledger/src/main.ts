// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  checkRefundReservation,
  createReservation,
  getBalance,
  getStatementSummary,
  listBalanceTransactions,
  paymentConfirmed,
  refundFailed,
  refundSucceeded,
  releaseReservation,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadLedgerConfig, type LedgerConfig } from './config';
import { ledgerDatabase } from './persistence';
import { postConfirmedPayment } from './application/post-confirmed-payment';
import { postSucceededRefund } from './application/post-succeeded-refund';
import { SettlementSweep } from './application/settlement-sweep';
import { reserveRefund } from './application/reserve-refund';
import { releaseUnopenedRefund } from './application/release-unopened-refund';
import { postFailedRefund } from './application/post-failed-refund';
import { ReservationSweep } from './application/reservation-sweep';
import { handleGetBalance } from './handlers/ledger.balance.get.v1';
import { handleListBalanceTransactions } from './handlers/ledger.balance-transactions.list.v1';
import { handleGetStatementSummary } from './handlers/ledger.statement.get.v1';

export interface LedgerService extends ServiceRuntime {
  settlement: SettlementSweep;
  reservations: ReservationSweep;
}

/** How long the reservation sweep waits for the payment service's answer about one refund. */
const REFUND_CHECK_TIMEOUT_MS = 5000;

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
  await runtime.broker
    .handlers('ledger')
    .handle(getBalance, handleGetBalance(dataSource))
    .handle(listBalanceTransactions, handleListBalanceTransactions(dataSource))
    .handle(getStatementSummary, handleGetStatementSummary(dataSource))
    // Each journal is keyed by its event's id: a redelivered or replayed event posts nothing twice.
    .handle(paymentConfirmed, async (event) => {
      await postConfirmedPayment(paymentDeps, event);
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
    .consume();
  settlement.start();
  runtime.onStop('settlement-sweep', () => settlement.stop());
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
  return { ...runtime, settlement, reservations };
}

if (require.main === module) {
  const config = loadOrExit(loadLedgerConfig);
  runUntilSignal(() => startLedgerService(config), createLogger('ledger', config.LOG_LEVEL));
}
