import {
  getPixChargeStatus,
  newPublicId,
  openPixCharge,
  paymentCancelled,
  type PaymentEventPayload,
  type PaymentMethod,
  type PixCharge,
  simulatePixOutcome,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { startSandboxPspSimulator, type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  type RecordingProxy,
  startRecordingProxy,
} from '@gateway/psp-simulator/test/support/recording-proxy';
import {
  aPaymentEvent,
  serviceTestBed,
  startHttpProxy,
  takeParkedMessages,
  testLogger,
  waitFor,
  waitForParkedMessages,
  type HttpProxy,
  type ServiceTestBed,
} from '@gateway/testkit';
import { SANDBOX_PIX_KEY, loadPixAdapterConfig } from '../src/config';
import { startPixAdapter, type PixAdapter } from '../src/main';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import { sandboxPayer } from './support/sandbox-payer';

describe('payment.cancelled.v1: the cob of a cancelled PIX payment is removed at the PSP', () => {
  let bed: ServiceTestBed<PixAdapter>;
  let psp: RunningPspSimulator;
  let recorder: RecordingProxy;
  let proxy: HttpProxy;
  let payer: ApiPixClient;

  beforeAll(async () => {
    bed = await serviceTestBed('pix-adapter-cancel', async (env, cleanup) => {
      psp = await startSandboxPspSimulator(testLogger('psp'));
      cleanup.afterStop(() => psp.close());
      recorder = await startRecordingProxy(psp.url);
      cleanup.afterStop(() => recorder.close());
      proxy = await startHttpProxy(recorder.url);
      cleanup.afterStop(() => proxy.close());
      return startPixAdapter(
        loadPixAdapterConfig({
          ...env.config,
          PSP_BASE_URL: proxy.url,
          CALLBACK_PORT: '0',
          // One event at a time, in order: an event published after another shows the first one handled.
          BROKER_PREFETCH: '1',
        }),
      );
    });
    payer = sandboxPayer(psp.url);
  });

  afterAll(async () => {
    await payer.close();
    await bed.close();
  });

  afterEach(() => psp.faults.clear());

  const parkingQueue = () => `${bed.env.config.AMQP_PREFIX}pix-adapter.events.parking`;

  async function open(): Promise<{ paymentId: string; charge: PixCharge }> {
    const paymentId = newPublicId('pay');
    const reply = await bed.client.request(
      openPixCharge,
      {
        payment_id: paymentId,
        business_name: 'Padaria Pão Quente',
        amount_centavos: 2500,
        expires_in_seconds: 3600,
      },
      { timeoutMs: 8000 },
    );
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    return { paymentId, charge: reply.result };
  }

  const cancelledEvent = (paymentId: string, method: PaymentMethod = 'pix'): PaymentEventPayload =>
    aPaymentEvent({ payment_id: paymentId, method, status: 'cancelled', amount_centavos: 2500 });

  const chargeStatus = async (txid: string): Promise<string> =>
    (await bed.service.dataSource.query('SELECT status FROM charges WHERE txid = $1', [txid]))[0].status;

  const becomes = (txid: string, status: string, timeoutMs = 10_000) =>
    waitFor(async () => (await chargeStatus(txid)) === status, {
      what: `charge ${txid} ${status}`,
      timeoutMs,
    });

  const outbox = async (txid: string): Promise<string[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT name FROM outbox WHERE envelope->'payload'->>'txid' = $1 ORDER BY seq`,
        [txid],
      )
    ).map((row: { name: string }) => row.name);

  const removals = (txid: string) =>
    recorder.exchanges.filter(
      (exchange) => exchange.method === 'PATCH' && exchange.url === `/v2/cob/${txid}`,
    );

  /** Cancels another payment and waits for it: with one event at a time, every event published before is handled. */
  async function eventsBeforeHandled(): Promise<void> {
    const probe = await open();
    await bed.client.publish(paymentCancelled, cancelledEvent(probe.paymentId));
    await becomes(probe.charge.txid, 'cancelled');
  }

  test('the cob is removed (REMOVIDA_PELO_USUARIO_RECEBEDOR), the charge ends cancelled, and nothing is announced', async () => {
    const { paymentId, charge } = await open();
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
    await becomes(charge.txid, 'cancelled');

    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(removals(charge.txid).map((exchange) => JSON.parse(exchange.body))).toEqual([
      { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
    ]);
    expect(await outbox(charge.txid)).toEqual([]);
    // The reconciliation's question is answered in the contract's words: a charge that failed, removed by us.
    const status = await bed.client.request(
      getPixChargeStatus,
      { payment_id: paymentId },
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
    const { paymentId, charge } = await open();
    const envelope = createEnvelope(paymentCancelled, cancelledEvent(paymentId));
    await bed.client.publishEnvelope(envelope, {});
    await becomes(charge.txid, 'cancelled');
    const [first] = await bed.service.dataSource.query('SELECT updated_at FROM charges WHERE txid = $1', [
      charge.txid,
    ]);

    await bed.client.publishEnvelope(envelope, {});
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
    await eventsBeforeHandled();

    expect(removals(charge.txid)).toHaveLength(1);
    const [again] = await bed.service.dataSource.query('SELECT updated_at FROM charges WHERE txid = $1', [
      charge.txid,
    ]);
    expect(again).toEqual(first);
    expect(await takeParkedMessages(parkingQueue())).toEqual([]);
  });

  test('a cancelled crypto payment is left to the watcher: no PIX charge is touched', async () => {
    const { paymentId, charge } = await open();
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId, 'crypto'));
    await eventsBeforeHandled();
    expect(await chargeStatus(charge.txid)).toBe('active');
    expect(removals(charge.txid)).toEqual([]);
  });

  test('when the cob was paid before the removal landed, the cancellation succeeds and the PIX is still reported', async () => {
    const { paymentId, charge } = await open();
    // The PSP's callback for this PIX is lost, and the overdue poll is far off: only the cancellation can find it.
    await payer.registerWebhook(SANDBOX_PIX_KEY, 'http://127.0.0.1:9');
    try {
      await payer.sandboxPay(charge.txid, null);
      await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
      await becomes(charge.txid, 'paid');
    } finally {
      await payer.registerWebhook(SANDBOX_PIX_KEY, bed.service.callbackUrl);
    }
    expect(await outbox(charge.txid)).toEqual(['pix.charge.paid.v1']);
    const [paid] = await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE name = 'pix.charge.paid.v1'
          AND envelope->'payload'->>'txid' = $1`,
      [charge.txid],
    );
    expect(paid.payload).toMatchObject({ payment_id: paymentId, amount_centavos: 2500 });
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'CONCLUIDA' });
    const found = await bed.service.dataSource.query(
      'SELECT outcome, source FROM callbacks_received WHERE txid = $1',
      [charge.txid],
    );
    expect(found).toEqual([{ outcome: 'applied', source: 'poll' }]);
    expect(await takeParkedMessages(parkingQueue())).toEqual([]);
  });

  test('while the PSP is unavailable, or its answer is lost, the removal is retried until the charge is cancelled', async () => {
    const { paymentId, charge } = await open();
    const path = new RegExp(`/cob/${charge.txid}$`);
    // Both tries of the first delivery fail; the broker's retry meets a removal whose answer is lost, then its replay.
    psp.faults.inject({ fault: { kind: 'server-error' }, count: 2, method: 'PATCH', path });
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PATCH', path });
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
    await becomes(charge.txid, 'cancelled', 15_000);
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(await takeParkedMessages(parkingQueue())).toEqual([]);
  });

  test('a PSP refusing to remove a cob still active is not asked again: the charge stays active and followed', async () => {
    const { paymentId, charge } = await open();
    proxy.failNext(1, 400);
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
    await waitFor(() => proxy.failuresServed() > 0, { what: 'the refused removal' });
    await eventsBeforeHandled();
    expect(await chargeStatus(charge.txid)).toBe('active');
    expect(proxy.failuresServed()).toBe(1);
    expect(removals(charge.txid)).toEqual([]);
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'ATIVA' });
    expect(await takeParkedMessages(parkingQueue())).toEqual([]);
  });

  test('a cob removed outside the gateway (or whose cancellation was never recorded) is closed failed and announced', async () => {
    const { paymentId, charge } = await open();
    await payer.removeCharge(charge.txid);
    const expired = await bed.client.request(
      simulatePixOutcome,
      { payment_id: paymentId, outcome: 'expired', amount_centavos: null },
      { timeoutMs: 8000 },
    );
    expect(expired.ok).toBe(true);
    await becomes(charge.txid, 'failed');
    expect(await outbox(charge.txid)).toEqual(['pix.charge.closed.v1']);
    const [closure] = await bed.service.dataSource.query(
      `SELECT envelope->'payload' AS payload FROM outbox WHERE envelope->'payload'->>'txid' = $1`,
      [charge.txid],
    );
    expect(closure.payload).toMatchObject({ reason: 'failed', detail: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  });

  test('a poison cancellation is parked at once and the events behind it are still handled', async () => {
    const { paymentId, charge } = await open();
    const envelope = createEnvelope(paymentCancelled, cancelledEvent(paymentId));
    await bed.client.publishEnvelope(
      { ...envelope, payload: { ...envelope.payload, payment: { payment_id: 42 } } } as never,
      {},
    );
    const parked = await waitForParkedMessages(parkingQueue(), 'the parked cancellation');
    expect(parked).toEqual([
      expect.objectContaining({
        messageId: envelope.id,
        type: paymentCancelled.name,
        reason: expect.stringContaining('payment'),
      }),
    ]);
    expect(await chargeStatus(charge.txid)).toBe('active');
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
    await becomes(charge.txid, 'cancelled');
  });

  test('after losing its broker connection the adapter still removes the cobs of cancelled payments', async () => {
    const { paymentId, charge } = await open();
    bed.service.broker.dropConnectionForTesting();
    await bed.client.publish(paymentCancelled, cancelledEvent(paymentId));
    await becomes(charge.txid, 'cancelled', 15_000);
    expect(await payer.getCharge(charge.txid)).toMatchObject({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  });
});
