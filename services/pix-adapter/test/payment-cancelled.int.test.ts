import {
  getPixChargeStatus,
  paymentCancelled,
  type PaymentEventPayload,
  type PaymentMethod,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  type RecordingProxy,
  startRecordingProxy,
} from '@gateway/psp-simulator/test/support/recording-proxy';
import {
  aPaymentEvent,
  startHttpProxy,
  takeParkedMessages,
  waitFor,
  waitForParkedMessages,
  type HttpProxy,
} from '@gateway/testkit';
import { SANDBOX_PIX_KEY } from '../src/config';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  type AdapterBed,
  chargeBecomes,
  eventsAbout,
  eventsParkingQueue,
  openCharge,
  simulateOutcome,
  startAdapterAgainstSandboxPsp,
  storedCharge,
} from './support/adapter';

describe('payment.cancelled.v1: the cob of a cancelled PIX payment is removed at the PSP', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;
  let recorder: RecordingProxy;
  let proxy: HttpProxy;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, psp, payer } = await startAdapterAgainstSandboxPsp(
      'pix-adapter-cancel',
      async (started, _env, cleanup) => {
        recorder = await startRecordingProxy(started.url);
        cleanup.afterStop(() => recorder.close());
        proxy = await startHttpProxy(recorder.url);
        cleanup.afterStop(() => proxy.close());
        return {
          PSP_BASE_URL: proxy.url,
          // One event at a time, in order: an event published after another shows the first one handled.
          BROKER_PREFETCH: '1',
        };
      },
    ));
  });

  afterAll(() => bed.close());

  afterEach(() => psp.faults.clear());

  const cancelledEvent = (paymentId: string, method: PaymentMethod = 'pix'): PaymentEventPayload =>
    aPaymentEvent({ payment_id: paymentId, method, status: 'cancelled', amount_centavos: 2500 });

  const removals = (txid: string) =>
    recorder.exchanges.filter(
      (exchange) => exchange.method === 'PATCH' && exchange.url === `/v2/cob/${txid}`,
    );

  /** Cancels another payment and waits for it: with one event at a time, every event published before is handled. */
  async function eventsBeforeHandled(): Promise<void> {
    const probe = await openCharge(bed);
    await bed.client.publish(paymentCancelled, cancelledEvent(probe.payment_id));
    await chargeBecomes(bed, probe.txid, 'cancelled');
  }

  test('the cob is removed (REMOVIDA_PELO_USUARIO_RECEBEDOR), the charge ends cancelled, and nothing is announced', async () => {
    const charge = await openCharge(bed);
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
    await chargeBecomes(bed, charge.txid, 'cancelled');

    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(removals(charge.txid).map((exchange) => JSON.parse(exchange.body))).toEqual([
      { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
    ]);
    expect(await eventsAbout(bed, charge.txid)).toEqual([]);
    // The reconciliation's question is answered in the contract's words: a charge that failed, removed by us.
    const status = await bed.request(
      getPixChargeStatus,
      { payment_id: charge.payment_id },
      { timeoutMs: 8000 },
    );
    expect(status).toEqual({
      ok: true,
      result: {
        txid: charge.txid,
        status: 'failed',
        pix: [],
        closure: { reason: 'failed', detail: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', received_pix: [] },
      },
    });
  });

  test('when the cancellation is delivered twice, or again under a new message id, the cob is removed once', async () => {
    const charge = await openCharge(bed);
    const envelope = createEnvelope(paymentCancelled, cancelledEvent(charge.payment_id));
    await bed.client.publishEnvelope(envelope, {});
    await chargeBecomes(bed, charge.txid, 'cancelled');
    const [first] = await bed.service.dataSource.query('SELECT updated_at FROM charges WHERE txid = $1', [
      charge.txid,
    ]);

    await bed.client.publishEnvelope(envelope, {});
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
    await eventsBeforeHandled();

    expect(removals(charge.txid)).toHaveLength(1);
    const [again] = await bed.service.dataSource.query('SELECT updated_at FROM charges WHERE txid = $1', [
      charge.txid,
    ]);
    expect(again).toEqual(first);
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);
  });

  test('a cancelled crypto payment is left to the watcher: no PIX charge is touched', async () => {
    const charge = await openCharge(bed);
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id, 'crypto'));
    await eventsBeforeHandled();
    expect((await storedCharge(bed, charge.txid)).status).toBe('active');
    expect(removals(charge.txid)).toEqual([]);
  });

  test('when the cob was paid before the removal landed, the cancellation succeeds and the PIX is still reported', async () => {
    const charge = await openCharge(bed);
    // The PSP's callback for this PIX is lost, and the overdue poll is far off: only the cancellation can find it.
    await payer.registerWebhook(SANDBOX_PIX_KEY, 'http://127.0.0.1:9');
    try {
      await payer.sandboxPay(charge.txid, null);
      await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
      await chargeBecomes(bed, charge.txid, 'paid');
    } finally {
      await payer.registerWebhook(SANDBOX_PIX_KEY, bed.service.callbackUrl);
    }
    expect(await eventsAbout(bed, charge.txid)).toEqual(['pix.charge.paid.v1']);
    const [paid] = await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE name = 'pix.charge.paid.v1'
          AND envelope->'payload'->>'txid' = $1`,
      [charge.txid],
    );
    expect(paid.payload).toMatchObject({ payment_id: charge.payment_id, amount_centavos: 2500 });
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'CONCLUIDA' });
    const found = await bed.service.dataSource.query(
      'SELECT outcome, source FROM callbacks_received WHERE txid = $1',
      [charge.txid],
    );
    expect(found).toEqual([{ outcome: 'applied', source: 'poll' }]);
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);
  });

  test('while the PSP is unavailable, or its answer is lost, the removal is retried until the charge is cancelled', async () => {
    const charge = await openCharge(bed);
    const path = new RegExp(`/cob/${charge.txid}$`);
    // Both tries of the first delivery fail; the broker's retry meets a removal whose answer is lost, then its replay.
    psp.faults.inject({ fault: { kind: 'server-error' }, count: 2, method: 'PATCH', path });
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PATCH', path });
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
    await chargeBecomes(bed, charge.txid, 'cancelled', 15_000);
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);
  });

  test('a PSP refusing to remove a cob still active is not asked again: the charge stays active and followed', async () => {
    const charge = await openCharge(bed);
    proxy.failNext(1, 400);
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
    await waitFor(() => proxy.failuresServed() > 0, { what: 'the refused removal' });
    await eventsBeforeHandled();
    expect((await storedCharge(bed, charge.txid)).status).toBe('active');
    expect(proxy.failuresServed()).toBe(1);
    expect(removals(charge.txid)).toEqual([]);
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'ATIVA' });
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);
  });

  test('a cob removed outside the gateway (or whose cancellation was never recorded) is closed failed and announced', async () => {
    const charge = await openCharge(bed);
    await payer.removeCharge(charge.txid);
    const expired = await simulateOutcome(bed, charge.payment_id, 'expired');
    expect(expired.ok).toBe(true);
    await chargeBecomes(bed, charge.txid, 'failed');
    expect(await eventsAbout(bed, charge.txid)).toEqual(['pix.charge.closed.v1']);
    const [closure] = await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE envelope->'payload'->>'txid' = $1`,
      [charge.txid],
    );
    expect(closure.payload).toMatchObject({ reason: 'failed', detail: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  });

  test('a poison cancellation is parked at once and the events behind it are still handled', async () => {
    const charge = await openCharge(bed);
    const envelope = createEnvelope(paymentCancelled, cancelledEvent(charge.payment_id));
    await bed.client.publishEnvelope(
      { ...envelope, payload: { ...envelope.payload, payment: { payment_id: 42 } } } as never,
      {},
    );
    const parked = await waitForParkedMessages(eventsParkingQueue(bed), 'the parked cancellation');
    expect(parked).toEqual([
      expect.objectContaining({
        messageId: envelope.id,
        type: paymentCancelled.name,
        reason: expect.stringContaining('payment'),
      }),
    ]);
    expect((await storedCharge(bed, charge.txid)).status).toBe('active');
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
    await chargeBecomes(bed, charge.txid, 'cancelled');
  });

  test('after losing its broker connection the adapter still removes the cobs of cancelled payments', async () => {
    const charge = await openCharge(bed);
    bed.service.broker.dropConnectionForTesting();
    await bed.client.publish(paymentCancelled, cancelledEvent(charge.payment_id));
    await chargeBecomes(bed, charge.txid, 'cancelled', 15_000);
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  });
});
