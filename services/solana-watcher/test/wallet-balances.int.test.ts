import { PublicKey } from '@solana/web3.js';
import { getWalletBalances, type WalletBalances } from '@gateway/contracts';
import { WatcherHarness } from './support/watcher';

describe('crypto.wallet-balances.get.v1: what the receiving wallet holds, read from the chain', () => {
  const harness = WatcherHarness.forTheseTests();

  const balances = async (recentSeconds: number): Promise<WalletBalances> => {
    const reply = await harness.bed.request(getWalletBalances, { recent_seconds: recentSeconds });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };
  const usdcOf = (read: WalletBalances) => read.balances.find((balance) => balance.token === 'usdc')!;

  test('each accepted token in base units, with what the transfers of the last seconds brought', async () => {
    const before = await balances(3600);
    expect(before.wallet).toBe(harness.localnet.receivingWallet.toBase58());
    expect(before.balances.map((balance) => balance.token)).toEqual(['usdc', 'usdt', 'eurc']);
    expect(usdcOf(before)).toMatchObject({
      mint: harness.localnet.mints.USDC,
      base_units: '0',
      decimals: 6,
      recent_base_units: '0',
    });

    const paid = await harness.paidRequest({ token: 'usdc', amount_centavos: 10_000 });

    const after = await balances(3600);
    expect(usdcOf(after)).toMatchObject({
      base_units: paid.amount_base_units,
      recent_base_units: paid.amount_base_units,
    });
    expect(await harness.tokenBalance(harness.localnet.receivingWallet)).toBe(BigInt(paid.amount_base_units));
    // Outside the window, nothing is recent; the balance is the chain's whatever the window.
    expect(usdcOf(await balances(0))).toMatchObject({
      base_units: paid.amount_base_units,
      recent_base_units: '0',
    });
  });

  test('tokens that reach the wallet outside any payment show in its balance (the chain is read, not our records)', async () => {
    const held = BigInt(usdcOf(await balances(0)).base_units);
    harness.localnet.seeder.mintTo(
      harness.localnet.receivingWallet,
      new PublicKey(harness.localnet.mints.USDC),
      7n,
    );
    expect(usdcOf(await balances(3600))).toMatchObject({
      base_units: (held + 7n).toString(),
      recent_base_units: expect.any(String),
    });
    expect(BigInt(usdcOf(await balances(3600)).recent_base_units)).toBe(held);
  });
});
