import { PeriodicWorker } from '@gateway/messaging';
import { gauge, type Logger } from '@gateway/observability';

const LAMPORTS_PER_SOL = 1_000_000_000;

const feePayerBalance = gauge(
  'solana_watcher_fee_payer_balance_sol',
  'SOL held by the receiving wallet, which pays the fees (and the rent of new token accounts) of refunds and returns',
);
const lowBalanceThreshold = gauge(
  'solana_watcher_fee_payer_low_balance_threshold_sol',
  'FEE_PAYER_LOW_BALANCE_SOL: below it the FeePayerBalanceLow alert fires',
);

/**
 * Reads the fee payer's SOL balance once per interval (one RPC request) into a gauge, next to the configured
 * threshold, so the alert compares the two: a wallet running out of SOL can sign no refund.
 */
export class FeePayerBalanceWatch extends PeriodicWorker {
  constructor(
    /** The fee payer's balance in lamports (the receiving wallet's: `SolanaRpc.getBalance`). */
    private readonly chain: { feePayerBalance(): Promise<number> },
    private readonly settings: { intervalMs: number; lowBalanceSol: number },
    logger: Logger,
  ) {
    super({ name: 'solana-fee-payer-balance', intervalMs: settings.intervalMs, logger });
  }

  protected override async pass(): Promise<void> {
    lowBalanceThreshold.set(this.settings.lowBalanceSol);
    feePayerBalance.set((await this.chain.feePayerBalance()) / LAMPORTS_PER_SOL);
  }
}
