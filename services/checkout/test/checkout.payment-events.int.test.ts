import {
  newPublicId,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
  type PaymentView,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { poisonedEnvelope, publishAndAwaitParking, takeParkedMessages, waitFor } from '@gateway/testkit';
import { checkoutWithPaymentsForTheseTests, sessionStartCommand } from './support/checkout-service';

describe('sessions following their payments (payment.*.v1 events)', () => {
  const bed = checkoutWithPaymentsForTheseTests('checkout-events');

  const parkingQueue = () => `${bed.env.config.AMQP_PREFIX}checkout.events.parking`;

  interface StartedSession {
    sessionId: string;
    payment: PaymentView['payment'];
  }

  const startSession = async (): Promise<StartedSession> => {
    const reply = await bed.startSession(sessionStartCommand(await bed.newCheckout()));
    if (!reply.ok) throw new Error(`session not started: ${reply.error.code}`);
    return { sessionId: reply.result.session_id, payment: reply.result.payment.payment };
  };

  const eventFor = (
    payment: PaymentView['payment'],
    status: 'paid' | 'expired' | 'failed' | 'processing',
  ) => ({
    event_id: newPublicId('evt'),
    business_id: payment.business_id,
    occurred_at: new Date().toISOString(),
    payment: { ...payment, status, updated_at: new Date().toISOString() },
  });

  const sessionRow = async (sessionId: string): Promise<{ status: string; updated_at: Date }> =>
    (
      await bed.service.dataSource.query('SELECT status, updated_at FROM sessions WHERE id = $1', [sessionId])
    )[0];

  const statusBecomes = (sessionId: string, status: string) =>
    waitFor(async () => ((await sessionRow(sessionId)).status === status ? true : undefined), {
      what: `session ${sessionId} to be ${status}`,
    });

  /** Events are handled concurrently, so "processed" is shown by a later event's effect plus the inbox. */
  const handledEvents = async (messageIds: string[]): Promise<number> =>
    (
      await bed.service.dataSource.query(
        `SELECT count(*)::int AS n FROM inbox WHERE consumer = 'checkout.payment-events' AND message_id = ANY($1)`,
        [messageIds],
      )
    )[0].n;

  test.each([
    [paymentConfirmed.name, 'paid', paymentConfirmed],
    [paymentExpired.name, 'expired', paymentExpired],
    [paymentFailed.name, 'failed', paymentFailed],
  ] as const)('after %s its session is %s', async (_name, status, definition) => {
    const { sessionId, payment } = await startSession();
    await bed.client.publish(definition, eventFor(payment, status));
    await statusBecomes(sessionId, status);
  });

  test('a session that ended keeps its status whatever payment events come later', async () => {
    const { sessionId, payment } = await startSession();
    await bed.client.publish(paymentExpired, eventFor(payment, 'expired'));
    await statusBecomes(sessionId, 'expired');
    const ended = await sessionRow(sessionId);

    const late = [
      await bed.client.publish(paymentConfirmed, eventFor(payment, 'paid')),
      await bed.client.publish(paymentFailed, eventFor(payment, 'failed')),
    ];
    await waitFor(async () => (await handledEvents(late.map((e) => e.id))) === 2, {
      what: 'the late events',
    });
    expect(await sessionRow(sessionId)).toEqual(ended);
  });

  test('when the same event is delivered twice, the session changes once', async () => {
    const { sessionId, payment } = await startSession();
    const envelope = createEnvelope(paymentConfirmed, eventFor(payment, 'paid'));
    await bed.client.publishEnvelope(envelope, {});
    await statusBecomes(sessionId, 'paid');
    const changed = await sessionRow(sessionId);

    await bed.client.publishEnvelope(envelope, {});
    // A later event on a fresh session proves the queue moved past the duplicate.
    const probe = await startSession();
    await bed.client.publish(paymentFailed, eventFor(probe.payment, 'failed'));
    await statusBecomes(probe.sessionId, 'failed');
    expect(await sessionRow(sessionId)).toEqual(changed);
    expect(await handledEvents([envelope.id])).toBe(1);
    expect(await takeParkedMessages(parkingQueue())).toEqual([]);
  });

  test('events of payments no checkout session started change nothing and are not parked', async () => {
    const { sessionId, payment } = await startSession();
    const foreign = { ...payment, payment_id: newPublicId('pay') };
    await bed.client.publish(paymentCreated, eventFor(payment, 'processing'));
    const foreignConfirmed = await bed.client.publish(paymentConfirmed, eventFor(foreign, 'paid'));
    await waitFor(async () => (await handledEvents([foreignConfirmed.id])) === 1, {
      what: 'the foreign event',
    });
    await bed.client.publish(paymentFailed, eventFor(payment, 'failed'));
    await statusBecomes(sessionId, 'failed');
    const rows = await bed.service.dataSource.query(
      'SELECT count(*)::int AS n FROM sessions WHERE payment_id = $1',
      [foreign.payment_id],
    );
    expect(rows[0].n).toBe(0);
    expect(await takeParkedMessages(parkingQueue())).toEqual([]);
  });

  test('a poison payment event is parked and the events behind it still move their sessions', async () => {
    const { sessionId, payment } = await startSession();
    const envelope = poisonedEnvelope(paymentConfirmed, eventFor(payment, 'paid'), {
      payment: { payment_id: 42 },
    });
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'checkout', 'events', envelope);
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, type: paymentConfirmed.name }),
    ]);
    expect((await sessionRow(sessionId)).status).toBe('initiated');
    await bed.client.publish(paymentConfirmed, eventFor(payment, 'paid'));
    await statusBecomes(sessionId, 'paid');
  });

  test('after the service loses its broker connection, events published meanwhile still reach their sessions', async () => {
    const { sessionId, payment } = await startSession();
    bed.service.broker.dropConnectionForTesting();
    await bed.client.publish(paymentConfirmed, eventFor(payment, 'paid'));
    await waitFor(async () => ((await sessionRow(sessionId)).status === 'paid' ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the session to be paid after reconnect',
    });
  });
});
