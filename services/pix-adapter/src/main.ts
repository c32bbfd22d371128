// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  accountCallbackToken,
  changePixChargeAmount,
  getPixChargeStatus,
  getPspStatement,
  openPixCharge,
  paymentCancelled,
  payoutRequested,
  pixRefundRequested,
  pixFundsReturnRequested,
  simulatePixOutcome,
  submitPixMedDefence,
  setPspAccount as setPspAccountCommand,
  getPspAccount,
  removePspAccount as removePspAccountCommand,
  openPixRecurrence,
  cancelPixRecurrence,
  openPixCycle,
  simulatePixRecurrence,
  advancePixRecurrenceClock,
} from '@gateway/contracts';
import { parseSealingKey } from '@gateway/persistence';
import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadPixAdapterConfig, type PixAdapterConfig } from './config';
import { pixAdapterDatabase } from './persistence';
import { pixWithDevolucoesBetween } from './persistence/refund-store';
import { ApiPixClient, type ApiPixClientConfig } from './clients/psp/api-pix-client';
import { PixPayoutPort } from './clients/psp/envio';
import { CallbackProcessor } from './application/callback-processor';
import { readCallbackTls, startCallbackServer } from './http/callback-server';
import { readClientCertificate } from './clients/psp/client-certificate';
import { PSP_PROFILES } from './domain/psp-profiles';
import { ExpirySweeper } from './application/expiry-sweeper';
import { OverdueCallbackPoll } from './application/overdue-callback-poll';
import { OverdueDevolucaoPoll } from './application/overdue-devolucao-poll';
import { registerPspWebhook, registerRecurrenceWebhooks } from './application/register-psp-webhook';
import { openRecurrence } from './application/open-recurrence';
import { RecurrenceCallbacks, RecurrencePoll } from './application/follow-recurrence';
import { advanceRecurrenceClock } from './application/advance-recurrence-clock';
import { cancelRecurrence } from './application/cancel-recurrence';
import { openCycle } from './application/open-cycle';
import { simulateRecurrence } from './application/simulate-recurrence';
import { openCharge } from './application/open-charge';
import { changeChargeAmount } from './application/change-charge-amount';
import { simulateChargeOutcome } from './application/simulate-charge-outcome';
import { defendMed } from './application/defend-med';
import { requestRefund } from './application/request-refund';
import { requestFundsReturn } from './application/request-funds-return';
import { handleChargeStatus } from './handlers/pix.charge.status.v1';
import { handlePaymentCancelled } from './handlers/payment.cancelled.v1';
import { handlePayoutRequested } from './handlers/payout.requested.v1';
import { OverduePayoutPoll } from './application/overdue-payout-poll';
import { settleReportedPayouts } from './application/settle-reported-payouts';
import type { PayoutDeps } from './application/shared/settle-payout';
import { handleGetPspStatement } from './handlers/pix.psp-statement.get.v1';
import { setPspAccount } from './application/set-psp-account';
import { removePspAccount } from './application/remove-psp-account';
import { handleGetPspAccount } from './handlers/pix.psp-account.get.v1';
import { PspAccounts } from './clients/psp/psp-accounts';
import { AccountWebhooks } from './application/account-webhooks';
import { accountsInForce } from './persistence/psp-account-store';
import type { PspAccountEntity } from './persistence';

export interface PixAdapter extends ServiceRuntime {
  /** The URL registered at the PSP for callbacks (token included: never log it). */
  callbackUrl: string;
  sweeper: ExpirySweeper;
  overdueCallbackPoll: OverdueCallbackPoll;
  overdueDevolucaoPoll: OverdueDevolucaoPoll;
  overduePayoutPoll: OverduePayoutPoll;
  recurrencePoll: RecurrencePoll;
}

function mutualTls(config: PixAdapterConfig): ApiPixClientConfig['mTLS'] {
  return readClientCertificate({
    cert: config.PSP_MTLS_CERT,
    key: config.PSP_MTLS_KEY,
    ca: config.PSP_MTLS_CA,
    pfx: config.PSP_MTLS_PFX,
    passphrase: config.PSP_MTLS_PASSPHRASE,
  });
}

export async function startPixAdapter(config: PixAdapterConfig): Promise<PixAdapter> {
  // The certificates are read and checked first: a bad file is a configuration error, before anything is opened.
  const mTLS = mutualTls(config);
  const callbackTls = readCallbackTls({
    cert: config.CALLBACK_TLS_CERT,
    key: config.CALLBACK_TLS_KEY,
    clientCa: config.CALLBACK_CLIENT_CA,
  });
  const runtime = await openServiceRuntime({ service: 'pix-adapter', config, ...pixAdapterDatabase });
  const { logger, dataSource, broker } = runtime;
  // What the API Pix client and the payout port share: the same credentials, certificate and profile.
  const pspAccess = {
    baseUrl: config.PSP_BASE_URL,
    oauthTokenUrl: config.PSP_OAUTH_TOKEN_URL,
    clientId: config.PSP_CLIENT_ID,
    // Sicoob's profile sends no secret: none is configured.
    clientSecret: config.PSP_CLIENT_SECRET ?? '',
    ...(config.PSP_OAUTH_SCOPE === undefined ? {} : { scope: config.PSP_OAUTH_SCOPE }),
    ...(config.PSP_AUTOMATIC_PIX_OAUTH_SCOPE === undefined
      ? {}
      : { automaticPixScope: config.PSP_AUTOMATIC_PIX_OAUTH_SCOPE }),
    mTLS,
    profile: PSP_PROFILES[config.PSP_PROFILE],
    profileSettings: {
      developerAppKey: config.PSP_DEVELOPER_APP_KEY,
      accountNumber: config.PSP_ACCOUNT_NUMBER,
    },
    timeoutMs: config.PSP_TIMEOUT_MS,
    maxRetries: config.PSP_MAX_RETRIES,
  };
  const psp = new ApiPixClient({ ...pspAccess, pathPrefix: config.PSP_PATH_PREFIX }, { logger });
  runtime.onClose('psp-client', () => psp.close());
  // Every call about a charge goes to the account it was opened at: the platform's, or its business's own.
  const sealingKey = parseSealingKey(config.PSP_ACCOUNT_SEALING_KEY);
  const accounts = new PspAccounts({
    dataSource,
    platform: psp,
    sealingKey,
    timeoutMs: config.PSP_TIMEOUT_MS,
    maxRetries: config.PSP_MAX_RETRIES,
    logger,
  });
  runtime.onClose('psp-account-clients', () => accounts.close());
  // The PSP's own operations beside API Pix (Efí's envio de Pix for payouts, sent Pix, the account balance), with the
  // same credentials.
  const payoutPort = new PixPayoutPort(pspAccess, { logger });
  runtime.onClose('psp-payout-client', () => payoutPort.close());
  const payoutDeps: PayoutDeps = {
    dataSource,
    uow: runtime.unitOfWork(payoutRequested.name),
    port: payoutPort,
    payerKey: config.PAYOUT_PAYER_PIX_KEY,
    logger,
    overdueSeconds: config.PAYOUT_OVERDUE_SECONDS,
    retryFirstSeconds: config.PAYOUT_RETRY_FIRST_SECONDS,
    retryMaxSeconds: config.PAYOUT_RETRY_MAX_SECONDS,
  };

  const sweeper = new ExpirySweeper({
    dataSource,
    uow: runtime.unitOfWork('expiry-sweeper'),
    psp: accounts,
    intervalMs: config.EXPIRY_SWEEP_INTERVAL_MS,
    logger,
  });
  const processor = new CallbackProcessor({
    dataSource,
    uow: runtime.unitOfWork('pix-callback'),
    psp: accounts,
    logger,
  });
  const followDeps = {
    dataSource,
    uow: runtime.unitOfWork('pix-recurrence'),
    psp: accounts,
    logger,
    appEnv: config.APP_ENV,
  };
  const server = await startCallbackServer({
    host: config.CALLBACK_HOST,
    port: config.CALLBACK_PORT,
    token: config.CALLBACK_TOKEN,
    tls: callbackTls,
    processor,
    sentPix: (body) => settleReportedPayouts(payoutDeps, payoutPort.learnFromCallback(body)),
    recurrences: new RecurrenceCallbacks(followDeps),
    logger,
  });
  runtime.onStop('callback-listener', () => server.close());
  // The token in the registered URL is how the PSP's callbacks authenticate (mTLS is the production alternative).
  const publicBase = (config.CALLBACK_PUBLIC_URL ?? server.baseUrl).replace(/\/+$/, '');
  const callbackUrl = `${publicBase}/webhook?token=${encodeURIComponent(config.CALLBACK_TOKEN)}`;
  const registration = await registerPspWebhook(psp, config.PIX_KEY, callbackUrl, logger);
  runtime.onStop('webhook-registration', () => registration.stop());
  // Pix Automático's callbacks, where the PSP's profile takes it.
  if (psp.opensRecurrences()) {
    const recurrenceUrl = (path: string) =>
      `${publicBase}/webhook/${path}?token=${encodeURIComponent(config.CALLBACK_TOKEN)}`;
    const recRegistration = await registerRecurrenceWebhooks(
      psp,
      recurrenceUrl('rec'),
      recurrenceUrl('cobr'),
      logger,
    );
    runtime.onStop('recurrence-webhook-registration', () => recRegistration.stop());
  }
  // Each business's own account calls back on a path of its own, registered when the account is set (and at start).
  const accountWebhooks = new AccountWebhooks({
    accounts,
    callbackUrlOf: (accountId) =>
      `${publicBase}/webhook/accounts/${accountId}?token=${accountCallbackToken(config.CALLBACK_TOKEN, accountId)}`,
    logger,
  });
  await accountWebhooks.registerAll(await accountsInForce(dataSource.manager));
  runtime.onStop('account-webhook-registrations', () => accountWebhooks.stop());
  // Efí sends only from a key with a webhook, and tells that key's webhook how each send ended.
  if (config.PAYOUT_PAYER_PIX_KEY !== config.PIX_KEY) {
    const payerRegistration = await registerPspWebhook(psp, config.PAYOUT_PAYER_PIX_KEY, callbackUrl, logger);
    runtime.onStop('payer-webhook-registration', () => payerRegistration.stop());
  }

  const openDeps = {
    dataSource,
    psp: accounts,
    pixKey: config.PIX_KEY,
    merchantCity: config.MERCHANT_CITY,
  };
  const changeDeps = {
    dataSource,
    uow: runtime.unitOfWork(changePixChargeAmount.name),
    psp: accounts,
    merchantCity: config.MERCHANT_CITY,
  };
  const simulateDeps = {
    dataSource,
    uow: runtime.unitOfWork(simulatePixOutcome.name),
    psp: accounts,
    appEnv: config.APP_ENV,
    onExpiryMoved: () => sweeper.nudge(),
  };
  const recurrenceDeps = { ...openDeps, receiverAccount: config.PSP_RECEIVER_ACCOUNT };
  const simulateRecurrenceDeps = {
    dataSource,
    uow: runtime.unitOfWork(simulatePixRecurrence.name),
    psp: accounts,
    appEnv: config.APP_ENV,
  };
  const refundDeps = { dataSource, uow: runtime.unitOfWork(pixRefundRequested.name), psp: accounts, logger };
  const fundsReturnDeps = { ...refundDeps, uow: runtime.unitOfWork(pixFundsReturnRequested.name) };
  const setAccountDeps = {
    dataSource,
    uow: runtime.unitOfWork(setPspAccountCommand.name),
    sealingKey,
    onAccountSet: (account: PspAccountEntity) => accountWebhooks.register(account),
  };
  await broker
    .handlers('pix-adapter')
    .handle(openPixCharge, (command, context) => openCharge(openDeps, command, context))
    .handle(changePixChargeAmount, (command, context) => changeChargeAmount(changeDeps, command, context))
    .handle(simulatePixOutcome, (command, context) => simulateChargeOutcome(simulateDeps, command, context))
    .handle(openPixRecurrence, (command, context) => openRecurrence(recurrenceDeps, command, context))
    .handle(cancelPixRecurrence, (command, context) => cancelRecurrence(followDeps, command, context))
    .handle(openPixCycle, (command, context) => openCycle(recurrenceDeps, command, context))
    .handle(simulatePixRecurrence, (command, context) =>
      simulateRecurrence(simulateRecurrenceDeps, command, context),
    )
    .handle(advancePixRecurrenceClock, (command) => advanceRecurrenceClock(followDeps, command))
    .handle(submitPixMedDefence, (command, context) =>
      defendMed(
        { dataSource, uow: runtime.unitOfWork(submitPixMedDefence.name), psp: accounts },
        command,
        context,
      ),
    )
    .handle(
      getPixChargeStatus,
      handleChargeStatus({
        dataSource,
        uow: runtime.unitOfWork('pix-status'),
        psp: accounts,
        logger,
        unknownChargeGraceSeconds: config.PSP_UNKNOWN_CHARGE_GRACE_SECONDS,
      }),
    )
    .handle(
      paymentCancelled,
      handlePaymentCancelled({ dataSource, uow: runtime.unitOfWork(paymentCancelled.name), psp: accounts }),
    )
    .handle(pixRefundRequested, (event, context) => requestRefund(refundDeps, event, context))
    .handle(pixFundsReturnRequested, (event, context) => requestFundsReturn(fundsReturnDeps, event, context))
    .handle(payoutRequested, handlePayoutRequested(payoutDeps))
    .handle(setPspAccountCommand, (command, context) => setPspAccount(setAccountDeps, command, context))
    .handle(getPspAccount, handleGetPspAccount({ dataSource }))
    .handle(removePspAccountCommand, (command, context) =>
      removePspAccount({ uow: runtime.unitOfWork(removePspAccountCommand.name) }, command, context),
    )
    .handle(
      getPspStatement,
      handleGetPspStatement({
        psp,
        envio: payoutPort,
        pixWithDevolucoes: (from, to) => pixWithDevolucoesBetween(dataSource.manager, from, to),
      }),
    )
    .consume();
  sweeper.start();
  runtime.onStop('expiry-sweeper', () => sweeper.stop());
  const overdueCallbackPoll = new OverdueCallbackPoll({
    dataSource,
    uow: runtime.unitOfWork('pix-overdue-callback-poll'),
    // The platform's list of received Pix; a charge at a business's own account is re-read alone, at its account.
    psp: accounts,
    overdueSeconds: config.CALLBACK_OVERDUE_SECONDS,
    recheckSeconds: config.CHARGE_RECHECK_SECONDS,
    requestsPerMinute: config.PSP_POLL_REQUESTS_PER_MINUTE,
    intervalMs: config.CALLBACK_POLL_INTERVAL_MS,
    logger,
    unknownChargeGraceSeconds: config.PSP_UNKNOWN_CHARGE_GRACE_SECONDS,
  });
  overdueCallbackPoll.start();
  runtime.onStop('overdue-callback-poll', () => overdueCallbackPoll.stop());
  const overdueDevolucaoPoll = new OverdueDevolucaoPoll({
    dataSource,
    uow: runtime.unitOfWork('pix-overdue-devolucao-poll'),
    psp: accounts,
    overdueSeconds: config.DEVOLUCAO_OVERDUE_SECONDS,
    intervalMs: config.CALLBACK_POLL_INTERVAL_MS,
    logger,
  });
  overdueDevolucaoPoll.start();
  runtime.onStop('overdue-devolucao-poll', () => overdueDevolucaoPoll.stop());
  const overduePayoutPoll = new OverduePayoutPoll({
    ...payoutDeps,
    uow: runtime.unitOfWork('pix-overdue-payout-poll'),
    intervalMs: config.CALLBACK_POLL_INTERVAL_MS,
  });
  overduePayoutPoll.start();
  runtime.onStop('overdue-payout-poll', () => overduePayoutPoll.stop());
  const recurrencePoll = new RecurrencePoll({
    ...followDeps,
    uow: runtime.unitOfWork('pix-recurrence-poll'),
    recheckSeconds: config.RECURRENCE_RECHECK_SECONDS,
    intervalMs: config.CALLBACK_POLL_INTERVAL_MS,
  });
  recurrencePoll.start();
  runtime.onStop('recurrence-poll', () => recurrencePoll.stop());
  return Object.assign(runtime, {
    recurrencePoll,
    callbackUrl,
    sweeper,
    overdueCallbackPoll,
    overdueDevolucaoPoll,
    overduePayoutPoll,
  });
}

if (require.main === module) {
  const config = loadOrExit(loadPixAdapterConfig);
  runUntilSignal(() => startPixAdapter(config), createLogger('pix-adapter', config.LOG_LEVEL));
}
