import { Keypair } from '@solana/web3.js';
import { WatcherHarness, withToken2022Eurc } from './support/watcher';

describe('a stablecoin whose mint is a Token-2022 mint', () => {
  const mint = Keypair.generate().publicKey;
  const harness = WatcherHarness.forTheseTests(withToken2022Eurc(mint));

  test('is watched on the receiving token account Token-2022 derives, and pays the request', async () => {
    const request = await harness.open({ token: 'eurc' });
    const signature = await harness.pay(
      request.reference,
      BigInt(request.amount_base_units),
      mint.toBase58(),
    );
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toMatchObject({ signature, reference: request.reference });
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ mint: mint.toBase58(), applied_to: 'payment' }),
    ]);
  });
});
