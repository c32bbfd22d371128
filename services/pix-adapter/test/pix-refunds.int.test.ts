import {
  FAILING_REFUND_REASON,
  newPublicId,
  pixRefundRequested,
  type RefundRequested,
  type RefundSettled,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { metricsRegistry } from '@gateway/observability';
import { type RunningPspSimulator } from '@gateway/psp-simulator';
import {
  aRefundRequest,
  startTcpProxy,
  takeParkedMessages,
  waitFor,
  waitForParkedMessages,
  type TcpProxy,
} from '@gateway/testkit';
import { SANDBOX_PIX_KEY } from '../src/config';
import { type ApiPixClient } from '../src/clients/psp/api-pix-client';
import {
  type AdapterBed,
  anOpenPixCharge,
  chargeBecomes,
  eventsParkingQueue,
  openCharge,
  startAdapterAgainstSandboxPsp,
} from './support/adapter';

interface PaidPayment {
  paymentId: string;
  txid: string;
  endToEndId: string;
}

describe('pix.refund.requested.v1: refunds carried out as API Pix devoluções', () => {
  let bed: AdapterBed;
  let psp: RunningPspSimulator;
  let database: TcpProxy;
  let payer: ApiPixClient;

  beforeAll(async () => {
    ({ bed, psp, payer } = await startAdapterAgainstSandboxPsp(
      'pix-adapter-refunds',
      async (_psp, env, cleanup) => {
        const postgres = new URL(env.config.DATABASE_URL);
        database = await startTcpProxy({ host: postgres.hostname, port: Number(postgres.port) });
        cleanup.afterStop(() => database.close());
        return {
          DATABASE_URL: database.urlFor(env.config.DATABASE_URL),
          DEVOLUCAO_OVERDUE_SECONDS: '1',
          CALLBACK_POLL_INTERVAL_MS: '200',
          // One event at a time, in order: an event published after another shows the first one handled.
          BROKER_PREFETCH: '1',
        };
      },
    ));
  });

  afterAll(() => bed.close());

  afterEach(() => psp.faults.clear());

  async function paidPayment(amount = 2500): Promise<PaidPayment> {
    const { txid, payment_id: paymentId } = await openCharge(
      bed,
      anOpenPixCharge({ amount_centavos: amount }),
    );
    await payer.sandboxPay(txid, null);
    const paid = await chargeBecomes(bed, txid, 'paid');
    return { paymentId, txid, endToEndId: paid.paid_end_to_end_id! };
  }

  const refundOf = (payment: PaidPayment, amount: number, reason: string | null = null): RefundRequested =>
    aRefundRequest(
      { payment_id: payment.paymentId, amount_centavos: 2500 },
      { amount_centavos: amount, reason },
    );

  /** The pix.refund.settled.v1 a request ends with: its refund and payment, and how it went. */
  const settlementOf = (
    request: RefundRequested,
    outcome: Pick<RefundSettled, 'outcome' | 'external_id' | 'failure_reason'>,
  ): RefundSettled => ({ refund_id: request.refund_id, payment_id: request.payment_id, ...outcome });

  /** What the PSP names a devolução by: the id the adapter chose for it, kept as the refund's external id. */
  const devolucaoId = expect.stringMatching(/^[a-zA-Z0-9]{35}$/);

  const settledEvents = async (refundId: string): Promise<RefundSettled[]> =>
    (
      await bed.service.dataSource.query(
        `SELECT envelope->'payload' AS payload FROM outbox
          WHERE name = 'pix.refund.settled.v1' AND envelope->'payload'->>'refund_id' = $1 ORDER BY seq`,
        [refundId],
      )
    ).map((row: { payload: RefundSettled }) => row.payload);

  const settled = (refundId: string, timeoutMs = 10_000): Promise<RefundSettled> =>
    waitFor(async () => (await settledEvents(refundId))[0], {
      what: `refund ${refundId} settled`,
      timeoutMs,
    });

  const refundRow = async (refundId: string) =>
    (
      await bed.service.dataSource.query(
        `SELECT status, end_to_end_id, devolucao_id, amount_centavos::int AS amount, failure_reason
           FROM pix_refunds WHERE refund_id = $1`,
        [refundId],
      )
    )[0];

  /** Refunds a payment nobody paid and waits for it: with one event at a time, every event before is handled. */
  async function eventsBeforeHandled(): Promise<void> {
    const probe = refundOf({ paymentId: newPublicId('pay'), txid: '', endToEndId: '' }, 100);
    await bed.client.publish(pixRefundRequested, probe);
    await settled(probe.refund_id);
  }

  test('a refund becomes a devolução of the PIX that paid, settles succeeded once with its id; its callback is no new payment', async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 2500, 'Pedido devolvido');
    await bed.client.publish(pixRefundRequested, request);

    const event = await settled(request.refund_id);
    expect(event).toEqual(
      settlementOf(request, { outcome: 'succeeded', external_id: devolucaoId, failure_reason: null }),
    );
    expect(await payer.getDevolucao(payment.endToEndId, event.external_id!)).toMatchObject({
      id: event.external_id,
      valor: '25.00',
      descricao: 'Pedido devolvido',
      status: 'DEVOLVIDO',
    });
    expect(await refundRow(request.refund_id)).toEqual({
      status: 'succeeded',
      end_to_end_id: payment.endToEndId,
      devolucao_id: event.external_id,
      amount: 2500,
      failure_reason: null,
    });
    // The PSP calls back with the Pix and its devolução: the same Pix, seen again, not paid twice.
    await waitFor(
      async () =>
        (
          await bed.service.dataSource.query(
            `SELECT 1 FROM callbacks_received WHERE end_to_end_id = $1 AND outcome = 'duplicate'`,
            [payment.endToEndId],
          )
        ).length > 0,
      { what: 'the devolução callback handled' },
    );
    const paidReports = await bed.service.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox WHERE name = 'pix.charge.paid.v1' AND envelope->'payload'->>'txid' = $1`,
      [payment.txid],
    );
    expect(paidReports).toEqual([{ n: 1 }]);
    expect(await settledEvents(request.refund_id)).toHaveLength(1);
  });

  test(`a devolução the PSP does not carry out (reason "${FAILING_REFUND_REASON}") settles failed with the PSP's reason`, async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 1000, FAILING_REFUND_REASON);
    await bed.client.publish(pixRefundRequested, request);

    const event = await settled(request.refund_id);
    expect(event).toEqual(
      settlementOf(request, {
        outcome: 'failed',
        external_id: devolucaoId,
        failure_reason: expect.stringContaining('simulate:fail'),
      }),
    );
    expect(await payer.getDevolucao(payment.endToEndId, event.external_id!)).toMatchObject({
      status: 'NAO_REALIZADO',
    });
    expect(await refundRow(request.refund_id)).toMatchObject({
      status: 'failed',
      failure_reason: event.failure_reason,
    });
  });

  test('partial refunds each get their own devolução; one exceeding what is left is refused by the PSP and fails', async () => {
    const payment = await paidPayment(2500);
    const first = refundOf(payment, 1000);
    const second = refundOf(payment, 1500);
    await bed.client.publish(pixRefundRequested, first);
    await bed.client.publish(pixRefundRequested, second);
    const [one, two] = [await settled(first.refund_id), await settled(second.refund_id)];
    expect([one.outcome, two.outcome]).toEqual(['succeeded', 'succeeded']);
    expect(one.external_id).not.toBe(two.external_id);
    expect(await payer.getDevolucao(payment.endToEndId, one.external_id!)).toMatchObject({ valor: '10.00' });
    expect(await payer.getDevolucao(payment.endToEndId, two.external_id!)).toMatchObject({ valor: '15.00' });

    const third = refundOf(payment, 100);
    await bed.client.publish(pixRefundRequested, third);
    expect(await settled(third.refund_id)).toEqual(
      settlementOf(third, {
        outcome: 'failed',
        external_id: null,
        failure_reason: expect.stringMatching(
          /^O PSP recusou a devolução: .*excederia o valor do Pix original/,
        ),
      }),
    );
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);
  });

  test('an excess the refund carries goes back in the same devolução; more than the PIX brought is refused and fails', async () => {
    const payment = await paidPayment(2500);
    const excess = (centavos: number) => ({
      excess: { funds_id: newPublicId('fund'), amount_centavos: centavos, amount_base_units: null },
    });
    const carrying = { ...refundOf(payment, 2000), ...excess(500) };
    await bed.client.publish(pixRefundRequested, carrying);
    const event = await settled(carrying.refund_id);
    expect(event.outcome).toBe('succeeded');
    expect(await payer.getDevolucao(payment.endToEndId, event.external_id!)).toMatchObject({
      valor: '25.00',
    });

    const other = await paidPayment(2500);
    const tooMuch = { ...refundOf(other, 2500), ...excess(1) };
    await bed.client.publish(pixRefundRequested, tooMuch);
    expect(await settled(tooMuch.refund_id)).toMatchObject({ outcome: 'failed', external_id: null });
  });

  test('when the devolução callback is lost, the poll reads the devolução and settles the refund', async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 700);
    await payer.registerWebhook(SANDBOX_PIX_KEY, 'http://127.0.0.1:9');
    try {
      await bed.client.publish(pixRefundRequested, request);
      const event = await settled(request.refund_id, 15_000);
      expect(event).toMatchObject({ outcome: 'succeeded', external_id: expect.any(String) });
    } finally {
      await payer.registerWebhook(SANDBOX_PIX_KEY, bed.service.callbackUrl);
    }
    const devolucaoCallbacks = await bed.service.dataSource.query(
      `SELECT 1 FROM callbacks_received WHERE end_to_end_id = $1 AND outcome = 'duplicate'`,
      [payment.endToEndId],
    );
    expect(devolucaoCallbacks).toEqual([]);
  });

  test('a refund delivered twice, again under a new message id, and whose first answer was lost makes one devolução, settled the same way each time it is told', async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 2500);
    // The PSP makes the devolução but its answer never arrives: the retry meets the same one.
    psp.faults.inject({ fault: { kind: 'lost-answer' }, count: 1, method: 'PUT', path: /\/devolucao\// });
    const envelope = createEnvelope(pixRefundRequested, request);
    await bed.client.publishEnvelope(envelope, {});
    await bed.client.publishEnvelope(envelope, {});
    await bed.client.publish(pixRefundRequested, request);
    const event = await settled(request.refund_id);
    await eventsBeforeHandled();

    expect(event.outcome).toBe('succeeded');
    // A delivery that finds it settled tells the outcome again (the payment service settles it once).
    expect(new Set((await settledEvents(request.refund_id)).map((e) => JSON.stringify(e)))).toEqual(
      new Set([JSON.stringify(event)]),
    );
    // A second devolução of the whole amount would have been refused, and this one is the whole amount.
    expect(await payer.getDevolucao(payment.endToEndId, event.external_id!)).toMatchObject({
      valor: '25.00',
      status: 'DEVOLVIDO',
    });
    const rows = await bed.service.dataSource.query(
      'SELECT count(*)::int AS n FROM pix_refunds WHERE payment_id = $1',
      [payment.paymentId],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  test('asked again once it settled (the payment service resending a refund whose outcome it never got), it reports the same outcome again and asks the PSP nothing', async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 1200);
    await bed.client.publish(pixRefundRequested, request);
    const first = await settled(request.refund_id);
    const devolucoesBefore = (await payer.getReceivedPix(payment.endToEndId)).devolucoes;

    await bed.client.publish(pixRefundRequested, request);
    const reports = await waitFor(
      async () => {
        const told = await settledEvents(request.refund_id);
        return told.length === 2 ? told : undefined;
      },
      { what: 'the outcome reported again' },
    );

    expect(reports).toEqual([first, first]);
    expect(first).toMatchObject({ outcome: 'succeeded', external_id: devolucaoId });
    expect((await payer.getReceivedPix(payment.endToEndId)).devolucoes).toEqual(devolucoesBefore);
  });

  test('a refund of a payment with no PIX received fails at once, without asking the PSP', async () => {
    const request = refundOf({ paymentId: newPublicId('pay'), txid: '', endToEndId: '' }, 500);
    await bed.client.publish(pixRefundRequested, request);
    expect(await settled(request.refund_id)).toEqual(
      settlementOf(request, {
        outcome: 'failed',
        external_id: null,
        failure_reason: 'Nenhum PIX recebido foi encontrado para este pagamento.',
      }),
    );
  });

  test('a poison refund request is parked at once, never retried, and the requests behind it are carried out', async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 300);
    const envelope = createEnvelope(pixRefundRequested, request);
    await bed.client.publishEnvelope(
      { ...envelope, payload: { ...request, amount_centavos: 'muito' } } as never,
      {},
    );
    const parked = await waitForParkedMessages(eventsParkingQueue(bed), 'the parked refund request');
    expect(parked).toEqual([
      expect.objectContaining({
        messageId: envelope.id,
        type: pixRefundRequested.name,
        reason: expect.stringMatching(/^InvalidMessageError: .*amount_centavos/),
      }),
    ]);
    expect(await refundRow(request.refund_id)).toBeUndefined();
    await bed.client.publish(pixRefundRequested, request);
    expect((await settled(request.refund_id)).outcome).toBe('succeeded');
  });

  test('after losing its broker connection the adapter still carries refunds out', async () => {
    const payment = await paidPayment();
    bed.service.broker.dropConnectionForTesting();
    const request = refundOf(payment, 400);
    await bed.client.publish(pixRefundRequested, request);
    expect((await settled(request.refund_id, 15_000)).outcome).toBe('succeeded');
  });

  test('when the database is lost while the devolução is at the PSP, the request is retried and settles once', async () => {
    const payment = await paidPayment();
    const request = refundOf(payment, 900);
    psp.faults.inject({
      fault: { kind: 'slow', delayMs: 1500 },
      count: 1,
      method: 'PUT',
      path: /\/devolucao\//,
    });
    const failuresBefore = await transientFailures();
    await bed.client.publish(pixRefundRequested, request);
    await waitFor(async () => (await refundRow(request.refund_id))?.status === 'requested', {
      what: 'the refund stored before its devolução is asked for',
    });
    await database.refuse();
    try {
      await waitFor(async () => (await transientFailures()) > failuresBefore, {
        what: 'the handler failing without its database',
      });
    } finally {
      await database.forward();
    }
    const event = await settled(request.refund_id, 15_000);
    expect(event.outcome).toBe('succeeded');
    // A delivery that finds it settled tells the outcome again (the payment service settles it once).
    expect(new Set((await settledEvents(request.refund_id)).map((e) => JSON.stringify(e)))).toEqual(
      new Set([JSON.stringify(event)]),
    );
    expect(await payer.getDevolucao(payment.endToEndId, event.external_id!)).toMatchObject({ valor: '9.00' });
    expect(await takeParkedMessages(eventsParkingQueue(bed))).toEqual([]);
  });

  /** Handler failures the broker counted as transient on the adapter's events queue. */
  async function transientFailures(): Promise<number> {
    const metric = await metricsRegistry.getSingleMetric('broker_messages_failed_total')?.get();
    const queue = `${bed.env.config.AMQP_PREFIX}pix-adapter.events`;
    return (metric?.values ?? [])
      .filter((value) => value.labels.queue === queue && value.labels.kind === 'transient')
      .reduce((sum, value) => sum + value.value, 0);
  }
});
