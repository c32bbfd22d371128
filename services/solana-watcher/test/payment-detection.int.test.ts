import { cryptoRequestClosed, cryptoRequestSettled } from '@gateway/contracts';
import { WatcherHarness, closureOf } from './support/watcher';

describe('payment detection on the local chain', () => {
  const harness = WatcherHarness.forTheseTests();

  test('a transfer of the full amount settles the request with its signature, no excess, and who paid', async () => {
    const request = await harness.open();
    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toEqual({
      payment_id: request.payment_id,
      reference: request.reference,
      signature,
      received_base_units: request.amount_base_units,
      excess_base_units: '0',
      settled_at: expect.any(String),
      // The owner of the token account the transfer debited: the payer's wallet.
      payer_address: harness.localnet.payer.publicKey.toBase58(),
    });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'settled',
      settled_signature: signature,
    });
  });

  test('two partial transfers that add up to the amount settle it on the second one', async () => {
    const request = await harness.open();
    const amount = BigInt(request.amount_base_units);
    const first = amount / 3n;
    await harness.pay(request.reference, first);
    await harness.waitForTransfers(request.reference, 1);
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: first.toString(),
    });
    const second = await harness.pay(request.reference, amount - first);
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toMatchObject({
      signature: second,
      received_base_units: amount.toString(),
      excess_base_units: '0',
    });
  });

  test('an overpayment settles the request and reports the excess', async () => {
    const request = await harness.open();
    const amount = BigInt(request.amount_base_units);
    await harness.pay(request.reference, amount + 2_500_000n);
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toMatchObject({
      received_base_units: (amount + 2_500_000n).toString(),
      excess_base_units: '2500000',
    });
  });

  test('an underpaid request closes as underpaid when its window ends, with what was received', async () => {
    const request = await harness.open();
    await harness.pay(request.reference, 1_000_000n);
    await harness.waitForTransfers(request.reference, 1);
    expect((await harness.simulate(request.payment_id, 'expired')).ok).toBe(true);
    const closed = await harness.closed(request.payment_id);
    expect(closed.payload).toEqual(closureOf(request, 'underpaid', '1000000'));
    expect((await harness.request(request.reference)).status).toBe('underpaid');
  });

  test('a transfer arriving after the request expired is recorded as late and settles nothing', async () => {
    const request = await harness.open();
    expect((await harness.simulate(request.payment_id, 'expired')).ok).toBe(true);
    const closed = await harness.closed(request.payment_id);
    expect(closed.payload.reason).toBe('expired');
    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    const [transfer] = await harness.waitForTransfers(request.reference, 1);
    expect(transfer).toMatchObject({ signature, applied_to: 'late', amount: request.amount_base_units });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'expired',
      received_base_units: '0',
    });
    expect(harness.eventsFor(request.payment_id).map((event) => event.name)).toEqual([
      cryptoRequestClosed.name,
    ]);
  });

  test('a transfer in another token is recorded as wrong mint and ignored; the right token then settles', async () => {
    const request = await harness.open({ token: 'usdc' });
    const amount = BigInt(request.amount_base_units);
    const wrong = await harness.pay(request.reference, amount, harness.localnet.mints.USDT);
    const [transfer] = await harness.waitForTransfers(request.reference, 1);
    expect(transfer).toMatchObject({
      signature: wrong,
      applied_to: 'wrong_mint',
      mint: harness.localnet.mints.USDT,
    });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: '0',
    });
    const right = await harness.pay(request.reference, amount);
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload).toMatchObject({ signature: right, received_base_units: amount.toString() });
  });

  test('when the same transactions are scanned again from scratch, each is applied only once', async () => {
    const request = await harness.open();
    const half = BigInt(request.amount_base_units) / 2n;
    await harness.pay(request.reference, half);
    await harness.waitForTransfers(request.reference, 1);
    await harness.rescanFromScratch();
    expect(await harness.transfers(request.reference)).toHaveLength(1);
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: half.toString(),
    });
  });

  test('a payment made while the watcher was down is found when it starts again, and settled once', async () => {
    const request = await harness.open();
    let signature = '';
    await harness.restart(async () => {
      signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    });
    const settled = await harness.settled(request.payment_id);
    expect(settled.payload.signature).toBe(signature);
    await harness.nextFullScan();
    expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(1);
  });

  test('when the RPC answers 429 and 500 for a while, detection recovers and settles the payment', async () => {
    const request = await harness.open();
    harness.proxy.failNext(3, 429, 0);
    harness.proxy.failNext(3, 500);
    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    const settled = await harness.settled(request.payment_id, 20_000);
    expect(settled.payload.signature).toBe(signature);
    expect(harness.proxy.failuresServed()).toBe(6);
  });
});
