// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  cancelPayment,
  createRefund,
  cryptoRefundSettled,
  getRefund,
  listRefunds,
  pixRefundSettled,
  createPayment,
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  getPayment,
  listPayments,
  listAllReceivedFunds,
  listReceivedFunds,
  returnReceivedFunds,
  pixChargeClosed,
  pixChargePaid,
  setFeeRule,
  simulatePayment,
  updatePayment,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { defaultFeeRules, loadPaymentConfig, type PaymentConfig } from './config';
import { paymentDatabase } from './persistence';
import { Rails } from './clients';
import { createReservationPurge } from './application/purge-create-reservations';
import { PaymentReconciliation } from './application/reconcile-payments';
import { stuckPaymentsGauge } from './application/measure-stuck-payments';
import { refundResend } from './application/resend-refunds';
import { handleCreatePayment } from './handlers/payment.create.v1';
import { handleGetPayment } from './handlers/payment.get.v1';
import { handleUpdatePayment } from './handlers/payment.update.v1';
import { handleSimulatePayment } from './handlers/payment.simulate.v1';
import { handleSetFeeRule } from './handlers/fee-rule.set.v1';
import { handlePixChargePaid } from './handlers/pix.charge.paid.v1';
import { handlePixChargeClosed } from './handlers/pix.charge.closed.v1';
import { handleCryptoRequestSettled } from './handlers/crypto.request.settled.v1';
import { handleCryptoRequestClosed } from './handlers/crypto.request.closed.v1';
import { handleCryptoTransferUnapplied } from './handlers/crypto.transfer.unapplied.v1';
import { handleListPayments } from './handlers/payment.list.v1';
import { handleListAllReceivedFunds } from './handlers/payment.received-funds.list-all.v1';
import { handleListReceivedFunds } from './handlers/payment.received-funds.list.v1';
import { handleReturnReceivedFunds } from './handlers/payment.received-funds.return.v1';
import { handleCancelPayment } from './handlers/payment.cancel.v1';
import { handleCreateRefund } from './handlers/refund.create.v1';
import { handleGetRefund } from './handlers/refund.get.v1';
import { handleListRefunds } from './handlers/refund.list.v1';
import { handlePixRefundSettled } from './handlers/pix.refund.settled.v1';
import { handleCryptoRefundSettled } from './handlers/crypto.refund.settled.v1';

export interface PaymentService extends ServiceRuntime {
  reconciliation: PaymentReconciliation;
}

export async function startPaymentService(config: PaymentConfig): Promise<PaymentService> {
  const runtime = await openServiceRuntime({ service: 'payment', config, ...paymentDatabase });
  const { dataSource, broker } = runtime;
  const rails = new Rails(broker, {
    timeoutMs: config.RAIL_RPC_TIMEOUT_MS,
    pixExpiresInSeconds: config.PIX_EXPIRES_IN_SECONDS,
  });
  await broker.consumeCommands('payment', {
    [createPayment.name]: handleCreatePayment({
      dataSource,
      uow: runtime.unitOfWork(createPayment.name),
      rails,
      defaultFees: defaultFeeRules(config),
    }),
    [getPayment.name]: handleGetPayment(dataSource),
    [updatePayment.name]: handleUpdatePayment({
      dataSource,
      uow: runtime.unitOfWork(updatePayment.name),
      rails,
      // The claim outlives the rail call it covers (one RPC timeout) with room for the commit.
      amountChangeClaimMs: 2 * config.RAIL_RPC_TIMEOUT_MS + 5000,
    }),
    [simulatePayment.name]: handleSimulatePayment({
      dataSource,
      uow: runtime.unitOfWork(simulatePayment.name),
      rails,
      appEnv: config.APP_ENV,
    }),
    [setFeeRule.name]: handleSetFeeRule(runtime.unitOfWork(setFeeRule.name)),
    [listReceivedFunds.name]: handleListReceivedFunds(dataSource),
    [listAllReceivedFunds.name]: handleListAllReceivedFunds(dataSource),
    [returnReceivedFunds.name]: handleReturnReceivedFunds(runtime.unitOfWork(returnReceivedFunds.name)),
    [listPayments.name]: handleListPayments(dataSource),
    [cancelPayment.name]: handleCancelPayment(runtime.unitOfWork(cancelPayment.name)),
    [createRefund.name]: handleCreateRefund(runtime.unitOfWork(createRefund.name), rails),
    [getRefund.name]: handleGetRefund(dataSource),
    [listRefunds.name]: handleListRefunds(dataSource),
  });
  const railEvents = [
    pixChargePaid,
    pixChargeClosed,
    cryptoRequestSettled,
    cryptoRequestClosed,
    cryptoTransferUnapplied,
    pixRefundSettled,
    cryptoRefundSettled,
  ];
  await broker.consumeEvents(
    'payment',
    railEvents.map((event) => event.name),
    {
      [pixChargePaid.name]: handlePixChargePaid(runtime.unitOfWork(pixChargePaid.name)),
      [pixChargeClosed.name]: handlePixChargeClosed(runtime.unitOfWork(pixChargeClosed.name)),
      [cryptoRequestSettled.name]: handleCryptoRequestSettled(runtime.unitOfWork(cryptoRequestSettled.name)),
      [cryptoRequestClosed.name]: handleCryptoRequestClosed(runtime.unitOfWork(cryptoRequestClosed.name)),
      [cryptoTransferUnapplied.name]: handleCryptoTransferUnapplied(
        runtime.unitOfWork(cryptoTransferUnapplied.name),
      ),
      [pixRefundSettled.name]: handlePixRefundSettled(runtime.unitOfWork(pixRefundSettled.name)),
      [cryptoRefundSettled.name]: handleCryptoRefundSettled(runtime.unitOfWork(cryptoRefundSettled.name)),
    },
  );
  const purge = createReservationPurge(dataSource, {
    retentionHours: config.CREATE_RESERVATION_RETENTION_HOURS,
    logger: runtime.logger,
  });
  purge.start();
  runtime.onStop('create-reservation-purge', () => purge.stop());
  const reconciliation = new PaymentReconciliation(dataSource, runtime.unitOfWork('reconciliation'), rails, {
    afterSeconds: config.RECONCILE_AFTER_SECONDS,
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    logger: runtime.logger,
  });
  reconciliation.start();
  runtime.onStop('payment-reconciliation', () => reconciliation.stop());
  const stuck = stuckPaymentsGauge(dataSource, {
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    logger: runtime.logger,
  });
  stuck.start();
  runtime.onStop('stuck-payments-gauge', () => stuck.stop());
  const resend = refundResend(dataSource, runtime.unitOfWork('refund-resend'), rails, {
    afterSeconds: config.REFUND_RESEND_AFTER_SECONDS,
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    logger: runtime.logger,
  });
  resend.start();
  runtime.onStop('refund-resend', () => resend.stop());
  return Object.assign(runtime, { reconciliation });
}

if (require.main === module) {
  const config = loadOrExit(loadPaymentConfig);
  runUntilSignal(() => startPaymentService(config), createLogger('payment', config.LOG_LEVEL));
}
