import { cryptoTransferUnapplied } from '@gateway/contracts';
import { UnappliedTransfers, aWholeAmountUnapplied } from './support/unapplied-transfers';
import { WatcherHarness } from './support/watcher';

describe('crypto.transfer.unapplied.v1: transfers that cannot count towards their request', () => {
  const harness = WatcherHarness.forTheseTests();
  const unapplied = UnappliedTransfers.forTheseTests(harness);

  const expire = async (paymentId: string) => {
    expect((await harness.simulate(paymentId, 'expired')).ok).toBe(true);
    await harness.closed(paymentId);
  };

  test('a transfer after expiry is reported once as after_expiry, even when the chain is scanned again from scratch', async () => {
    const request = await harness.open();
    await expire(request.payment_id);
    const expiredAt = Date.now();
    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    const reported = await unapplied.first(request.payment_id);
    expect(reported).toEqual(
      aWholeAmountUnapplied(request, {
        signature,
        mint: harness.localnet.mints.USDC,
        reason: 'after_expiry',
      }),
    );
    // The quote of its arrival, taken after the window whose quote the request locked.
    expect(Date.parse(reported.quote!.quoted_at)).toBeGreaterThanOrEqual(expiredAt);
    await harness.rescanFromScratch();
    expect(await harness.transfers(request.reference)).toHaveLength(1);
    expect(await harness.emitted(cryptoTransferUnapplied.name, request.payment_id)).toBe(1);
    expect(unapplied.of(request.payment_id)).toHaveLength(1);
    expect((await harness.request(request.reference)).status).toBe('expired');
  });

  test('a second transfer after the request was paid is reported as after_settlement; the settlement stands', async () => {
    const request = await harness.open();
    const paid = await harness.pay(request.reference, BigInt(request.amount_base_units));
    await harness.settled(request.payment_id);
    const again = await harness.pay(request.reference, 1_000_000n);
    expect(await unapplied.first(request.payment_id)).toMatchObject({
      signature: again,
      amount_base_units: '1000000',
      reason: 'after_settlement',
    });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'settled',
      settled_signature: paid,
      received_base_units: request.amount_base_units,
    });
  });

  test('a transfer to a superseded reference is reported as superseded, with that reference', async () => {
    const original = await harness.open();
    const reply = await harness.changeAmount(original.payment_id, 20_000);
    if (!reply.ok) throw new Error(reply.error.message);
    const signature = await harness.pay(original.reference, BigInt(original.amount_base_units));
    expect(await unapplied.first(original.payment_id)).toMatchObject({
      reference: original.reference,
      signature,
      reason: 'superseded',
    });
    expect((await harness.request(reply.result.reference)).received_base_units).toBe('0');
  });

  test('a transfer in another token is reported as wrong_mint with that mint; the request stays open', async () => {
    const request = await harness.open({ token: 'usdc' });
    const signature = await harness.pay(
      request.reference,
      BigInt(request.amount_base_units),
      harness.localnet.mints.USDT,
    );
    expect(await unapplied.first(request.payment_id)).toMatchObject({
      signature,
      mint: harness.localnet.mints.USDT,
      reason: 'wrong_mint',
    });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'open',
      received_base_units: '0',
    });
  });
});
