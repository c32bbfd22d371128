// First: tracing must start before the modules it instruments are loaded.
import './telemetry';
import {
  changeCryptoRequestAmount,
  cryptoRefundRequested,
  cryptoFundsReturnRequested,
  getCryptoRequestStatus,
  getWalletBalances,
  openCryptoRequest,
  paymentCancelled,
  simulateCryptoOutcome,
} from '@gateway/contracts';
import { exitOnConfigError, loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { openServiceRuntime, runUntilSignal, type ServiceRuntime } from '@gateway/service-runtime';
import { loadSolanaWatcherConfig, type SolanaWatcherConfig } from './config';
import { FeePayerBalanceWatch } from './application/fee-payer-balance-watch';
import { PaymentDetector } from './application/payment-detector';
import { RequestIssuer } from './application/request-issuer';
import { ArrivalQuotes } from './clients/arrival-quotes';
import { QuoteDesk } from './clients/quote-desk';
import { RefundDesk } from './application/refund-desk';
import { BinanceTickerProvider, CoinGeckoProvider } from './clients/price-sources';
import { openRefundSigner } from './clients/refund-signer';
import { RequestPacer } from './clients/request-pacer';
import { DEFAULT_RETRY_POLICY } from './clients/retry-post';
import { refundChainOnFirstUse, sandboxWalletOnFirstUse } from './clients/on-first-use';
import { SolanaRpc } from './clients/solana-rpc';
import { FixedRateProvider, type PriceProvider } from './domain/quote';
import { changeRequestAmount } from './application/change-request-amount';
import { openTransferRequest } from './application/open-transfer-request';
import { simulateCryptoOutcome as simulateOutcome } from './application/simulate-crypto-outcome';
import { handleCryptoRequestStatus } from './handlers/crypto.request.status.v1';
import { handlePaymentCancelled } from './handlers/payment.cancelled.v1';
import { handleGetWalletBalances } from './handlers/crypto.wallet-balances.get.v1';
import { solanaWatcherDatabase } from './persistence';

function priceProviders(config: SolanaWatcherConfig): PriceProvider[] {
  if (config.QUOTE_PROVIDER === 'live')
    return [new CoinGeckoProvider(config.COINGECKO_URL), new BinanceTickerProvider(config.BINANCE_URL)];
  const rates = config.FIXED_RATES;
  return [new FixedRateProvider({ USDC: rates.usdc, USDT: rates.usdt, EURC: rates.eurc })];
}

export async function startSolanaWatcher(config: SolanaWatcherConfig): Promise<ServiceRuntime> {
  // First: until the signer REFUND_SIGNER chose can sign for RECEIVING_WALLET (Vault's key read), nothing runs and
  // /healthz is not served (docs/operating.md#the-refund-signer).
  const refundSigner = await openRefundSigner(config, createLogger('solana-watcher', config.LOG_LEVEL));
  const runtime = await openServiceRuntime({ service: 'solana-watcher', config, ...solanaWatcherDatabase });
  const pacer = new RequestPacer(config.SOLANA_RPC_REQUESTS_PER_SECOND);
  const rpc = new SolanaRpc(config.SOLANA_RPC_URL, DEFAULT_RETRY_POLICY, pacer);
  const mints = { usdc: config.MINT_USDC, usdt: config.MINT_USDT, eurc: config.MINT_EURC };
  const quotes = new QuoteDesk(
    priceProviders(config),
    {
      maxAgeMs: config.QUOTE_MAX_AGE_MS,
      maxDeviationBps: config.QUOTE_MAX_DEVIATION_BPS,
      spreadBps: config.QUOTE_SPREAD_BPS,
    },
    runtime.logger,
  );
  const issuer = new RequestIssuer(quotes, {
    receivingWallet: config.RECEIVING_WALLET,
    mints,
    decimals: config.TOKEN_DECIMALS,
    windowSeconds: config.PAYMENT_WINDOW_SECONDS,
  });
  const wallet =
    config.APP_ENV === 'sandbox' && config.SANDBOX_PAYER_SECRET_KEY
      ? sandboxWalletOnFirstUse(config.SOLANA_RPC_URL, config.SANDBOX_PAYER_SECRET_KEY)
      : null;
  const detector = new PaymentDetector(
    runtime.dataSource,
    rpc,
    runtime.unitOfWork('solana-watcher.detector'),
    {
      receivingWallet: config.RECEIVING_WALLET,
      mints,
      pollIntervalMs: config.POLL_INTERVAL_MS,
      confirmationGraceMs: config.CONFIRMATION_GRACE_MS,
      pacer,
      unreadableRetryMs: config.UNREADABLE_RETRY_MS,
      arrivalQuotes: new ArrivalQuotes(quotes, mints, config.ARRIVAL_QUOTE_MAX_AGE_MS, runtime.logger),
    },
    runtime.logger,
  );
  const { dataSource } = runtime;
  const openDeps = { dataSource, uow: runtime.unitOfWork(openCryptoRequest.name), issuer };
  const changeDeps = {
    dataSource,
    uow: runtime.unitOfWork(changeCryptoRequestAmount.name),
    issuer,
    detector,
  };
  const simulateDeps = {
    dataSource,
    uow: runtime.unitOfWork(simulateCryptoOutcome.name),
    wallet,
    recipient: config.RECEIVING_WALLET,
    confirmationGraceMs: config.CONFIRMATION_GRACE_MS,
  };
  const refundChain = refundChainOnFirstUse(rpc, refundSigner, config.SOLANA_MAX_COMPUTE_UNIT_PRICE);
  const refunds = new RefundDesk(dataSource, runtime.unitOfWork(cryptoRefundRequested.name), refundChain);
  const feePayer = new FeePayerBalanceWatch(
    { feePayerBalance: () => rpc.getBalance(refundSigner.publicKey) },
    { intervalMs: config.FEE_PAYER_BALANCE_INTERVAL_MS, lowBalanceSol: config.FEE_PAYER_LOW_BALANCE_SOL },
    runtime.logger,
  );
  await runtime.broker
    .handlers('solana-watcher')
    .handle(openCryptoRequest, (command, context) => openTransferRequest(openDeps, command, context))
    .handle(changeCryptoRequestAmount, (command, context) =>
      changeRequestAmount(changeDeps, command, context),
    )
    .handle(simulateCryptoOutcome, (command, context) => simulateOutcome(simulateDeps, command, context))
    .handle(getCryptoRequestStatus, handleCryptoRequestStatus(dataSource))
    .handle(paymentCancelled, handlePaymentCancelled(runtime.unitOfWork(paymentCancelled.name)))
    // Carried out on chain by the refund desk.
    .handle(cryptoRefundRequested, (event, context) => refunds.carryOut(event, context))
    .handle(cryptoFundsReturnRequested, (event, context) => refunds.carryOutReturn(event, context))
    .handle(
      getWalletBalances,
      handleGetWalletBalances({
        dataSource,
        connection: rpc,
        receivingWallet: config.RECEIVING_WALLET,
        mints,
        decimals: config.TOKEN_DECIMALS,
      }),
    )
    .consume();
  detector.start();
  runtime.onStop('payment-detector', () => detector.stop());
  feePayer.start();
  runtime.onStop('fee-payer-balance', () => feePayer.stop());
  return runtime;
}

if (require.main === module) {
  const config = loadOrExit(loadSolanaWatcherConfig);
  // A signer Vault refuses (its token, its key) exits 78 naming the variable, as a bad configuration does.
  runUntilSignal(
    () => startSolanaWatcher(config).catch(exitOnConfigError),
    createLogger('solana-watcher', config.LOG_LEVEL),
  );
}
