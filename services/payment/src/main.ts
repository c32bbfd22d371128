// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  assignReceivedFunds,
  cryptoFundsReturnSettled,
  pixFundsReturnSettled,
  returnHeldFunds,
  cancelPayment,
  checkRefundReservation,
  createRefund,
  cryptoRefundSettled,
  getDispute,
  getRefund,
  listDisputes,
  submitDisputeDefence,
  listRefunds,
  pixRefundSettled,
  createPayment,
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  getPayment,
  listPayments,
  readPaymentChanges,
  listAllReceivedFunds,
  listReceivedFunds,
  returnReceivedFunds,
  pixChargeClosed,
  pixChargePaid,
  pixMedReported,
  setFeeRule,
  readPaymentEventLog,
  simulatePayment,
  updatePayment,
  advanceSubscriptionClock as advanceSubscription,
  cancelSubscription,
  updateSubscription as updateSubscriptionCommand,
  createSubscription,
  getSubscription,
  listSubscriptions,
  pixCycleAttemptFailed,
  pixRecurrenceChanged,
  simulateSubscription,
} from '@gateway/contracts';
import { loadOrExit } from '@gateway/config';
import { readEventLog } from '@gateway/messaging';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { defaultFeeRules, loadPaymentConfig, type PaymentConfig } from './config';
import { paymentDatabase } from './persistence';
import { LedgerReservations, Rails } from './clients';
import { createReservationPurge } from './application/create-reservation-purge';
import { refundIntentPurge } from './application/refund-intent-purge';
import { PaymentReconciliation } from './application/payment-reconciliation';
import { stuckPaymentsGauge } from './application/stuck-payments-gauge';
import { refundResend } from './application/refund-resend';
import { createPaymentOnRail } from './application/create-payment-on-rail';
import { changeOpenPayment } from './application/change-open-payment';
import { simulateRailOutcome } from './application/simulate-rail-outcome';
import { replaceFeeRule } from './application/replace-fee-rule';
import { returnReceivedFunds as returnFunds } from './application/return-received-funds';
import { assignHeldFunds } from './application/assign-held-funds';
import { sendHeldFundsBack } from './application/send-held-funds-back';
import { settleOperatorReturn } from './application/settle-operator-return';
import { cancelOpenPayment } from './application/cancel-open-payment';
import { openRefund } from './application/open-refund';
import { confirmOrGiveUpRefund } from './application/confirm-or-give-up-refund';
import { recordRailOutcome } from './application/record-rail-outcome';
import { keepUnappliedTransfer } from './application/keep-unapplied-transfer';
import { settleRefund } from './application/settle-refund';
import { recordMedDispute } from './application/record-med-dispute';
import { defendDispute } from './application/defend-dispute';
import { cryptoRequestClosure, cryptoSettledFunds, pixChargeClosure, pixChargePaidFunds } from './clients';
import { handleGetPayment } from './handlers/payment.get.v1';
import { handleListPayments } from './handlers/payment.list.v1';
import { handleReadPaymentChanges } from './handlers/payment.changes.v1';
import { handleListAllReceivedFunds } from './handlers/payment.received-funds.list-all.v1';
import { handleListReceivedFunds } from './handlers/payment.received-funds.list.v1';
import { handleGetRefund } from './handlers/refund.get.v1';
import { handleListRefunds } from './handlers/refund.list.v1';
import { handleGetDispute } from './handlers/dispute.get.v1';
import { handleListDisputes } from './handlers/dispute.list.v1';
import { handleGetSubscription } from './handlers/subscription.get.v1';
import { handleListSubscriptions } from './handlers/subscription.list.v1';
import { startSubscription } from './application/start-subscription';
import { cancelRunningSubscription } from './application/cancel-running-subscription';
import { applyRecurrenceChange } from './application/apply-recurrence-change';
import { announceCycleRetry } from './application/announce-cycle-retry';
import { advanceSubscriptionClock, resumeClockMove } from './application/advance-subscription-clock';
import { updateSubscription } from './application/update-subscription';
import { simulatePayerBank } from './application/simulate-payer-bank';
import { CycleScheduler } from './application/cycle-scheduler';

export interface PaymentService extends ServiceRuntime {
  reconciliation: PaymentReconciliation;
  cycleScheduler: CycleScheduler;
}

export async function startPaymentService(config: PaymentConfig): Promise<PaymentService> {
  const runtime = await openServiceRuntime({ service: 'payment', config, ...paymentDatabase });
  const { dataSource, broker } = runtime;
  const rails = new Rails(broker, {
    timeoutMs: config.RAIL_RPC_TIMEOUT_MS,
    pixExpiresInSeconds: config.PIX_EXPIRES_IN_SECONDS,
  });
  // Each inbox is named after its message: a redelivery finds what the first delivery did.
  const uow = (definition: { name: string }) => runtime.unitOfWork(definition.name);
  const defaultFees = defaultFeeRules(config);
  const createDeps = { dataSource, uow: uow(createPayment), rails, defaultFees };
  const updateDeps = {
    dataSource,
    uow: uow(updatePayment),
    rails,
    // The claim outlives the rail call it covers (one RPC timeout) with room for the commit.
    amountChangeClaimMs: 2 * config.RAIL_RPC_TIMEOUT_MS + 5000,
  };
  const refundDeps = {
    dataSource,
    uow: uow(createRefund),
    rails,
    ledger: new LedgerReservations(broker, {
      timeoutMs: config.LEDGER_RPC_TIMEOUT_MS,
      postingWaitMs: config.REFUND_POSTING_WAIT_MS,
    }),
    // Longer than the ledger's call can take (its wait for the payment to be posted, then one RPC timeout).
    intentGivesUpAfterMs: 2 * (config.REFUND_POSTING_WAIT_MS + config.LEDGER_RPC_TIMEOUT_MS) + 5000,
  };
  const simulateDeps = { dataSource, uow: uow(simulatePayment), rails, appEnv: config.APP_ENV };
  // Subscriptions: the scheduler and the sandbox's advance open cycles through the same step.
  const dueCycles = {
    dataSource,
    uow: runtime.unitOfWork('cycle-scheduler'),
    rails,
    defaultFees,
    logger: runtime.logger,
  };
  const cycleScheduler = new CycleScheduler(
    dueCycles,
    config.RECONCILE_INTERVAL_SECONDS * 1000,
    3 * config.RAIL_RPC_TIMEOUT_MS,
  );
  await broker
    .handlers('payment')
    .handle(createPayment, (command, context) => createPaymentOnRail(createDeps, command, context))
    .handle(getPayment, handleGetPayment(dataSource))
    // Its events in outbox order, for the webhook dispatcher to find what the broker lost (docs/adr/0040).
    .handle(readPaymentEventLog, (request) => readEventLog(dataSource, request, readPaymentEventLog))
    .handle(updatePayment, (command, context) => changeOpenPayment(updateDeps, command, context))
    .handle(simulatePayment, (command, context) => simulateRailOutcome(simulateDeps, command, context))
    .handle(setFeeRule, (rule, context) => replaceFeeRule(uow(setFeeRule), rule, context))
    .handle(listReceivedFunds, handleListReceivedFunds(dataSource))
    .handle(listAllReceivedFunds, handleListAllReceivedFunds(dataSource))
    .handle(returnReceivedFunds, (command, context) =>
      returnFunds({ uow: uow(returnReceivedFunds), defaultFees }, command, context),
    )
    .handle(assignReceivedFunds, (command, context) =>
      assignHeldFunds({ uow: uow(assignReceivedFunds), defaultFees }, command, context),
    )
    .handle(returnHeldFunds, (command, context) =>
      sendHeldFundsBack({ uow: uow(returnHeldFunds), rails }, command, context),
    )
    .handle(listPayments, handleListPayments(dataSource))
    .handle(readPaymentChanges, handleReadPaymentChanges(dataSource))
    .handle(cancelPayment, (command, context) => cancelOpenPayment(uow(cancelPayment), command, context))
    .handle(createRefund, (command, context) => openRefund(refundDeps, command, context))
    .handle(checkRefundReservation, (command) => confirmOrGiveUpRefund(dataSource, command))
    .handle(getRefund, handleGetRefund(dataSource))
    .handle(listRefunds, handleListRefunds(dataSource))
    .handle(getDispute, handleGetDispute(dataSource))
    .handle(listDisputes, handleListDisputes(dataSource))
    .handle(submitDisputeDefence, (command, context) =>
      defendDispute({ dataSource, uow: uow(submitDisputeDefence), rails }, command, context),
    )
    // The rails' outcomes: each decided under the payment's row lock.
    .handle(pixChargePaid, (event, context) =>
      recordRailOutcome(uow(pixChargePaid), { funds: [pixChargePaidFunds(event)], closure: null }, context),
    )
    .handle(pixChargeClosed, (event, context) =>
      recordRailOutcome(
        uow(pixChargeClosed),
        { funds: [], closure: pixChargeClosure(event.payment_id, event) },
        context,
      ),
    )
    .handle(cryptoRequestSettled, (event, context) =>
      recordRailOutcome(
        uow(cryptoRequestSettled),
        { funds: [cryptoSettledFunds(event.payment_id, event)], closure: null },
        context,
      ),
    )
    .handle(cryptoRequestClosed, (event, context) =>
      recordRailOutcome(
        uow(cryptoRequestClosed),
        { funds: [], closure: cryptoRequestClosure(event.payment_id, event) },
        context,
      ),
    )
    // A transfer for the payment that did not count towards it: kept as late (or unmatched) funds.
    .handle(cryptoTransferUnapplied, (event, context) =>
      keepUnappliedTransfer(uow(cryptoTransferUnapplied), event, context),
    )
    // The rail's refund reached its end (the PSP's devolução, the chain's transfer): the refund settles with it, once.
    .handle(pixRefundSettled, (event, context) => settleRefund(uow(pixRefundSettled), event, context))
    .handle(cryptoRefundSettled, (event, context) => settleRefund(uow(cryptoRefundSettled), event, context))
    // A MED devolução the PSP reported on a paid charge: a dispute opens or ends with it, once.
    .handle(pixMedReported, (event, context) => recordMedDispute(uow(pixMedReported), event, context))
    .handle(pixFundsReturnSettled, (event, context) =>
      settleOperatorReturn(uow(pixFundsReturnSettled), event, context),
    )
    .handle(cryptoFundsReturnSettled, (event, context) =>
      settleOperatorReturn(uow(cryptoFundsReturnSettled), event, context),
    )
    // Subscriptions (Pix Automático): the payment service owns them and their cycles; the PIX adapter the recurrence.
    .handle(createSubscription, (command, context) =>
      startSubscription(
        {
          dataSource,
          uow: uow(createSubscription),
          rails,
          defaultFees,
          pixExpiresInSeconds: config.PIX_EXPIRES_IN_SECONDS,
          appEnv: config.APP_ENV,
        },
        command,
        context,
      ),
    )
    .handle(getSubscription, handleGetSubscription(dataSource))
    .handle(listSubscriptions, handleListSubscriptions(dataSource))
    .handle(cancelSubscription, (command, context) =>
      cancelRunningSubscription({ dataSource, uow: uow(cancelSubscription), rails }, command, context),
    )
    .handle(updateSubscriptionCommand, (command, context) =>
      updateSubscription(uow(updateSubscriptionCommand), command, context),
    )
    .handle(simulateSubscription, (command, context) =>
      simulatePayerBank(
        { dataSource, uow: uow(simulateSubscription), rails, appEnv: config.APP_ENV },
        command,
        context,
      ),
    )
    .handle(advanceSubscription, (command) =>
      advanceSubscriptionClock({ ...dueCycles, appEnv: config.APP_ENV }, command),
    )
    .handle(pixRecurrenceChanged, async (event, context) => {
      if (await applyRecurrenceChange(uow(pixRecurrenceChanged), event, context))
        resumeClockMove(dueCycles, event.subscription_id);
    })
    .handle(pixCycleAttemptFailed, (event, context) =>
      announceCycleRetry(uow(pixCycleAttemptFailed), event, context),
    )
    .consume();
  const purge = createReservationPurge(dataSource, {
    retentionHours: config.CREATE_RESERVATION_RETENTION_HOURS,
    logger: runtime.logger,
  });
  purge.start();
  runtime.onStop('create-reservation-purge', () => purge.stop());
  const intentPurge = refundIntentPurge(dataSource, {
    retentionHours: config.REFUND_INTENT_RETENTION_HOURS,
    logger: runtime.logger,
  });
  intentPurge.start();
  runtime.onStop('refund-intent-purge', () => intentPurge.stop());
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
  cycleScheduler.start();
  runtime.onStop('cycle-scheduler', () => cycleScheduler.stop());
  return Object.assign(runtime, { reconciliation, cycleScheduler });
}

if (require.main === module) {
  const config = loadOrExit(loadPaymentConfig);
  runUntilSignal(() => startPaymentService(config), createLogger('payment', config.LOG_LEVEL));
}
