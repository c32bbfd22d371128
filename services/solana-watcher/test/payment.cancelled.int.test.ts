import { createEnvelope } from '@gateway/messaging';
import {
  cryptoRequestClosed,
  cryptoRequestSettled,
  cryptoTransferUnapplied,
  paymentCancelled,
  type Envelope,
  type PaymentEventPayload,
} from '@gateway/contracts';
import { aPaymentEvent, takeParkedMessages, waitFor } from '@gateway/testkit';
import { UnappliedTransfers, aWholeAmountUnapplied } from './support/unapplied-transfers';
import { WatcherHarness } from './support/watcher';

describe('payment.cancelled.v1: a cancelled crypto payment closes its request', () => {
  const harness = WatcherHarness.forTheseTests();
  const unapplied = UnappliedTransfers.forTheseTests(harness);

  /** payment.cancelled.v1 as the payment service emits it, for a payment of `method`. */
  function cancellation(paymentId: string, method: 'crypto' | 'pix' = 'crypto') {
    return createEnvelope(
      paymentCancelled,
      aPaymentEvent({ payment_id: paymentId, method, status: 'cancelled', amount_centavos: 10_000 }),
    );
  }

  async function cancel(paymentId: string): Promise<Envelope<PaymentEventPayload>> {
    const envelope = cancellation(paymentId);
    await harness.client.publishEnvelope(envelope, {});
    await waitFor(() => harness.handled(paymentCancelled.name, envelope.id), {
      what: 'the cancellation handled',
    });
    return envelope;
  }

  test('the open request closes as cancelled; a full transfer afterwards never settles it and is reported as received funds', async () => {
    const request = await harness.open();
    await cancel(request.payment_id);
    expect((await harness.request(request.reference)).status).toBe('cancelled');

    const signature = await harness.pay(request.reference, BigInt(request.amount_base_units));
    const reported = await unapplied.first(request.payment_id, 'the late transfer reported');
    expect(reported).toEqual(
      aWholeAmountUnapplied(request, {
        signature,
        mint: harness.localnet.mints.USDC,
        reason: 'after_expiry',
      }),
    );
    expect(await harness.transfers(request.reference)).toEqual([
      expect.objectContaining({ signature, applied_to: 'late' }),
    ]);
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'cancelled',
      received_base_units: '0',
      settled_signature: null,
    });
    // The payment is already final: nothing tells the payment service to settle or close it.
    expect(await harness.emitted(cryptoRequestSettled.name, request.payment_id)).toBe(0);
    expect(await harness.emitted(cryptoRequestClosed.name, request.payment_id)).toBe(0);
  });

  test('what a partial payment had brought before the cancellation is reported at once, since no closure will', async () => {
    const request = await harness.open();
    const signature = await harness.pay(request.reference, 1_000_000n);
    await harness.waitForTransfers(request.reference, 1);
    await cancel(request.payment_id);
    const reported = await unapplied.first(request.payment_id, 'the partial payment reported');
    expect(reported).toMatchObject({ signature, amount_base_units: '1000000', reason: 'after_expiry' });
    // It arrived within the window: valued at the quote the request locked for it.
    const locked = await harness.request(request.reference);
    expect(reported.quote).toEqual({
      token: 'usdc',
      token_per_brl: locked.quote_rate,
      quoted_at: new Date(locked.quote_at).toISOString(),
    });
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'cancelled',
      received_base_units: '1000000',
    });
  });

  test('a cancellation delivered twice, or sent again, cancels once and reports the partial payment once', async () => {
    const request = await harness.open();
    await harness.pay(request.reference, 2_000_000n);
    await harness.waitForTransfers(request.reference, 1);
    const first = await cancel(request.payment_id);
    // The same message redelivered, then a new message for the same cancellation.
    await harness.client.publishEnvelope(first, {});
    await cancel(request.payment_id);
    expect(await harness.emitted(cryptoTransferUnapplied.name, request.payment_id)).toBe(1);
    expect((await harness.request(request.reference)).status).toBe('cancelled');
  });

  test('a cancellation arriving after the request was paid changes nothing: the settlement stands', async () => {
    const request = await harness.paidRequest();
    await cancel(request.payment_id);
    expect(await harness.request(request.reference)).toMatchObject({
      status: 'settled',
      settled_signature: request.signature,
    });
    expect(await harness.emitted(cryptoTransferUnapplied.name, request.payment_id)).toBe(0);
  });

  test("another method's cancellation is acknowledged and touches no request", async () => {
    const request = await harness.open();
    // A PIX cancellation naming this payment, then a crypto one of another payment: handled in order, so once the
    // second is done the first was taken off the queue.
    await harness.client.publishEnvelope(cancellation(request.payment_id, 'pix'), {});
    const other = await harness.open();
    await cancel(other.payment_id);
    expect((await harness.request(request.reference)).status).toBe('open');
    expect(await takeParkedMessages(`${harness.config.AMQP_PREFIX}solana-watcher.events.parking`)).toEqual(
      [],
    );
  });
});
