import { cryptoRequestClosed, cryptoRequestSettled, simulateCryptoOutcome } from '@gateway/contracts';
import type { ServiceRuntime } from '@gateway/service-runtime';
import { startSolanaWatcher } from '../src/main';
import { WatcherHarness } from './support/watcher';

describe('several watcher replicas on one database', () => {
  let harness: WatcherHarness;
  let replica: ServiceRuntime | undefined;

  beforeAll(async () => {
    harness = await WatcherHarness.start();
    replica = await startSolanaWatcher(harness.config);
  });

  afterAll(async () => {
    await replica?.stop();
    await harness.close();
  });

  test('each payment is settled once and each expiry closed once, whichever replica scans', async () => {
    const paid = await Promise.all([harness.open(), harness.open(), harness.open()]);
    const expiring = await harness.open();
    for (const request of paid) await harness.pay(request.reference, BigInt(request.amount_base_units));
    await harness.bed.request(simulateCryptoOutcome, {
      payment_id: expiring.payment_id,
      outcome: 'expired',
      amount_centavos: null,
    });
    for (const request of paid) await harness.settled(request.payment_id);
    await harness.closed(expiring.payment_id);
    await harness.nextFullScan();
    for (const request of paid) {
      expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(1);
      expect(await harness.emitted(cryptoRequestClosed.name, request.payment_id)).toBe(0);
    }
    expect(await harness.emitted(cryptoRequestClosed.name, expiring.payment_id)).toBe(1);
  });
});
