import { getCryptoRequestStatus, newPublicId } from '@gateway/contracts';
import { WatcherHarness } from './support/watcher';

describe('crypto.request.status.v1: what a request received, for the payment service to reconcile', () => {
  const harness = WatcherHarness.forTheseTests();

  const status = async (paymentId: string) => {
    const reply = await harness.bed.request(getCryptoRequestStatus, { payment_id: paymentId });
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return reply.result;
  };

  test('an open request answers open with nothing; once paid in full, the settlement its event carried', async () => {
    const request = await harness.open();
    expect(await status(request.payment_id)).toEqual({
      reference: request.reference,
      status: 'open',
      received_base_units: '0',
      settlement: null,
      closure: null,
    });
    await harness.pay(request.reference, BigInt(request.amount_base_units) + 7n);
    const settled = await harness.settled(request.payment_id);
    expect(await status(request.payment_id)).toEqual({
      reference: request.reference,
      status: 'settled',
      received_base_units: settled.payload.received_base_units,
      settlement: {
        signature: settled.payload.signature,
        received_base_units: settled.payload.received_base_units,
        excess_base_units: '7',
      },
      closure: null,
    });
  });

  test('a request whose window ended after a partial transfer answers the closure its event carried', async () => {
    const request = await harness.open();
    const partial = BigInt(request.amount_base_units) / 2n;
    await harness.pay(request.reference, partial);
    await harness.waitForTransfers(request.reference, 1);
    const expired = await harness.simulate(request.payment_id, 'expired');
    expect(expired.ok).toBe(true);
    const closed = await harness.closed(request.payment_id);
    expect(await status(request.payment_id)).toEqual({
      reference: request.reference,
      status: 'underpaid',
      received_base_units: partial.toString(),
      settlement: null,
      closure: { reason: closed.payload.reason, received_base_units: closed.payload.received_base_units },
    });
    expect(closed.payload.reason).toBe('underpaid');
  });

  test('a payment the watcher never opened is NOT_FOUND', async () => {
    const reply = await harness.bed.request(getCryptoRequestStatus, { payment_id: newPublicId('pay') });
    expect(reply).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'Pagamento em cripto não encontrado.' },
    });
  });
});
