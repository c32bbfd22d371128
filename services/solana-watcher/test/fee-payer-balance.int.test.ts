import { LAMPORTS_PER_SOL } from '@solana/web3.js';
import { metricsRegistry } from '@gateway/observability';
import { waitFor } from '@gateway/testkit';
import { WatcherHarness } from './support/watcher';

async function gaugeValue(name: string): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  return metric?.values[0]?.value;
}

describe("the fee payer's SOL balance", () => {
  const harness = WatcherHarness.forTheseTests({
    env: { FEE_PAYER_BALANCE_INTERVAL_MS: '1000', FEE_PAYER_LOW_BALANCE_SOL: '25' },
  });

  test('is served as a gauge next to the configured threshold, and follows the wallet as its SOL runs low', async () => {
    const lamports = () =>
      harness.localnet.ledger.getAccount(harness.localnet.receivingWallet.toBase58())!.lamports;
    await waitFor(
      async () =>
        (await gaugeValue('solana_watcher_fee_payer_balance_sol')) === lamports() / LAMPORTS_PER_SOL ||
        undefined,
      { what: "the wallet's balance in the gauge" },
    );
    expect(await gaugeValue('solana_watcher_fee_payer_low_balance_threshold_sol')).toBe(25);
    // The wallet's SOL runs low: the next reading shows it.
    const wallet = harness.localnet.receivingWallet.toBase58();
    harness.localnet.ledger.setAccount(wallet, {
      ...harness.localnet.ledger.getAccount(wallet)!,
      lamports: 3 * LAMPORTS_PER_SOL,
    });
    await waitFor(async () => (await gaugeValue('solana_watcher_fee_payer_balance_sol')) === 3 || undefined, {
      what: 'the lower balance in the gauge',
    });
  });
});
