import { cryptoRequestSettled } from '@gateway/contracts';
import { WatcherHarness } from './support/watcher';

/** Mainnet confirms in about 1 s; a lagging RPC node lists later still. */
const CONFIRMED_LAG_MS = 2_000;

/**
 * Opens a request, pays it in full, then ends its window 300 ms after the transfer landed: the block time is in the
 * window, but the transfer is listed (at `confirmed`) only well after the window ended.
 */
async function paidJustBeforeWindowEnd(harness: WatcherHarness) {
  const request = await harness.open();
  const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
  const landed = harness.localnet.ledger.getRecord(signature)!;
  const windowEnd = landed.landedAt + 300;
  await harness.service.dataSource.query(`UPDATE payment_requests SET expires_at = $2 WHERE reference = $1`, [
    request.reference,
    new Date(windowEnd),
  ]);
  expect(landed.blockTime * 1000).toBeLessThanOrEqual(windowEnd);
  expect(harness.localnet.ledger.commitmentOf(landed)).toBe('processed');
  return { request, signature };
}

describe('a transfer landing in the window but confirmed after it', () => {
  let harness: WatcherHarness | undefined;
  afterEach(() => harness?.close());

  const start = async (graceMs: number) => {
    harness = await WatcherHarness.start({
      modes: { confirmedLagMs: CONFIRMED_LAG_MS },
      env: { CONFIRMATION_GRACE_MS: String(graceMs) },
    });
    return harness;
  };

  test('pays the request when the confirmation grace outlasts the lag', async () => {
    const watcher = await start(CONFIRMED_LAG_MS * 3);
    const { request, signature } = await paidJustBeforeWindowEnd(watcher);
    const settled = await watcher.settled(request.payment_id);
    expect(settled.payload).toMatchObject({ signature, received_base_units: request.amount_base_units });
    expect(await watcher.transfers(request.reference)).toEqual([
      expect.objectContaining({ signature, applied_to: 'payment' }),
    ]);
    expect(watcher.eventsFor(request.payment_id).map((event) => event.name)).toEqual([
      cryptoRequestSettled.name,
    ]);
  }, 20_000);

  test('without a grace, the request expires before the transfer is listed and the money is late funds', async () => {
    const watcher = await start(0);
    const { request, signature } = await paidJustBeforeWindowEnd(watcher);
    const closed = await watcher.closed(request.payment_id);
    expect(closed.payload).toMatchObject({ reason: 'expired', received_base_units: '0' });
    expect(await watcher.waitForTransfers(request.reference, 1)).toEqual([
      expect.objectContaining({ signature, applied_to: 'late' }),
    ]);
    expect((await watcher.request(request.reference)).status).toBe('expired');
  }, 20_000);
});
