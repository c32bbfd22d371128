import {
  changeCryptoRequestAmount,
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  simulateCryptoOutcome,
  type CryptoTransferUnapplied,
  type Envelope,
} from '@gateway/contracts';
import type { MessageContext } from '@gateway/messaging';
import { waitFor } from '@gateway/testkit';
import { WatcherHarness } from './support/watcher';

describe('crypto.transfer.unapplied.v1: transfers that cannot count towards their request', () => {
  const harness = WatcherHarness.forTheseTests();
  const received: Array<Envelope<CryptoTransferUnapplied>> = [];

  beforeAll(async () => {
    // A queue under a service name the watcher does not use, bound to the unapplied-transfer events only.
    await harness.client.consumeEvents('checkout', ['crypto.transfer.*.v1'], {
      [cryptoTransferUnapplied.name]: async (_payload: unknown, context: MessageContext) => {
        received.push(context.envelope as Envelope<CryptoTransferUnapplied>);
      },
    });
  });

  const receivedFor = (paymentId: string) =>
    received.filter((event) => event.payload.payment_id === paymentId).map((event) => event.payload);

  const waitForUnapplied = (paymentId: string) =>
    waitFor(() => receivedFor(paymentId)[0], { what: `an unapplied transfer of ${paymentId}` });

  const expire = async (paymentId: string) => {
    const reply = await harness.client.request(
      simulateCryptoOutcome,
      { payment_id: paymentId, outcome: 'expired', amount_centavos: null },
      { timeoutMs: 5000 },
    );
    expect(reply.ok).toBe(true);
    await harness.waitForEvent(paymentId, cryptoRequestClosed.name);
  };

  test('a transfer after expiry is reported once as after_expiry, even when the chain is scanned again from scratch', async () => {
    const request = await harness.open();
    await expire(request.payment_id);
    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    expect(await waitForUnapplied(request.payment_id)).toEqual({
      payment_id: request.payment_id,
      reference: request.reference,
      signature,
      amount_base_units: request.amount_base_units,
      mint: harness.localnet.mints.USDC,
      reason: 'after_expiry',
      detected_at: expect.any(String),
    });
    await harness.rescanFromScratch();
    expect(await harness.transfers(request.reference)).toHaveLength(1);
    expect(await harness.emitted(cryptoTransferUnapplied.name, request.payment_id)).toBe(1);
    expect(receivedFor(request.payment_id)).toHaveLength(1);
    expect((await harness.request(request.reference)).status).toBe('expired');
  });

  test('a second transfer after the request was paid is reported as after_settlement; the settlement stands', async () => {
    const request = await harness.open();
    const paid = await harness.pay(request.reference, BigInt(request.amount_base_units));
    await harness.waitForEvent(request.payment_id, cryptoRequestSettled.name);
    const again = await harness.pay(request.reference, 1_000_000n);
    expect(await waitForUnapplied(request.payment_id)).toMatchObject({
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
    const reply = await harness.client.request(
      changeCryptoRequestAmount,
      { payment_id: original.payment_id, business_name: 'Padaria Pão Quente', amount_centavos: 20_000 },
      { timeoutMs: 5000 },
    );
    if (!reply.ok) throw new Error(reply.error.message);
    const signature = await harness.pay(original.reference, BigInt(original.amount_base_units));
    expect(await waitForUnapplied(original.payment_id)).toMatchObject({
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
    expect(await waitForUnapplied(request.payment_id)).toMatchObject({
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
