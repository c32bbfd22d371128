import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey, Transaction } from '@solana/web3.js';
import { waitFor } from '@gateway/testkit';
import { WatcherHarness } from './support/watcher';

const DUST_TRANSFERS = 1_000;
/** "A few seconds": a pass in progress (two seconds of reads at most) and the next one's look at the references. */
const MAX_CONFIRMATION_DELAY_MS = 5_000;

describe('a flood of dust transfers to the receiving wallet', () => {
  // A modest budget, so reading the flood would take the watcher 100 s.
  const harness = WatcherHarness.forTheseTests({ env: { SOLANA_RPC_REQUESTS_PER_SECOND: '10' } });

  /** Lands `count` transfers of one base unit from the local chain's payer to the receiving wallet, naming nothing. */
  function dust(count: number): void {
    const { ledger, payer, receivingWallet, mints } = harness.localnet;
    const mint = new PublicKey(mints.USDC);
    const source = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const destination = getAssociatedTokenAddressSync(mint, receivingWallet);
    for (let i = 0; i < count; i++) {
      const transfer = new Transaction({ feePayer: payer.publicKey, ...ledger.latestBlockhash() }).add(
        createTransferCheckedInstruction(source, mint, destination, payer.publicKey, 1n, 6),
      );
      transfer.sign(payer);
      ledger.send(transfer.serialize());
    }
  }

  test(`while the watcher reads ${DUST_TRANSFERS} dust transfers, a real payment is confirmed within a few seconds`, async () => {
    const request = await harness.open();
    const readBefore = harness.localnet.traffic.servedOf('getTransaction');
    dust(DUST_TRANSFERS);
    // The watcher is busy with the flood when the payment lands.
    await waitFor(() => harness.localnet.traffic.servedOf('getTransaction') - readBefore >= 20 || undefined, {
      what: 'the watcher reading the dust',
    });
    const paidAt = Date.now();
    await harness.pay(request.reference, BigInt(request.amount_base_units));
    await harness.settled(request.payment_id, 30_000);
    const delayMs = Date.now() - paidAt;
    const dustRead = harness.localnet.traffic.servedOf('getTransaction') - readBefore - 1;
    process.stdout.write(
      `dust flood: ${DUST_TRANSFERS} dust transfers, payment confirmed ${delayMs} ms after it landed ` +
        `(${dustRead} dust transactions read by then)\n`,
    );
    expect(delayMs).toBeLessThanOrEqual(MAX_CONFIRMATION_DELAY_MS);
    // The payment did not wait for the flood to be read.
    expect(dustRead).toBeLessThan(DUST_TRANSFERS);
    expect((await harness.request(request.reference)).status).toBe('settled');
  }, 60_000);
});
