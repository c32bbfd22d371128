import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import {
  deleteWebhook,
  newPublicId,
  paymentConfirmed,
  paymentCreated,
  paymentExpired,
  paymentFailed,
} from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import type { ServiceRuntime } from '@gateway/service-runtime';
import { aPaymentEvent, waitFor, waitForParkedMessages } from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness, uniquePath } from './support/harness';

describe('payment.*.v1 events become signed webhook deliveries', () => {
  let harness: Harness;
  let dispatcher: ServiceRuntime;

  beforeAll(async () => {
    harness = await Harness.create('webhook-events');
    dispatcher = await harness.startDispatcher();
  });

  afterAll(async () => {
    await harness.close();
  });

  const countDeliveries = async (eventId: string): Promise<number> => {
    const [row] = await harness.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM deliveries WHERE event_id = $1',
      [eventId],
    );
    return row!.n;
  };

  test('the receiver gets the documented body (docs/api.md#events), and both signatures verify with the webhook secret', async () => {
    const { businessId, path, webhook } = await harness.businessWithEndpoint('ok', answers.status(200));
    const { payload } = await harness.publishPaymentEvent(paymentConfirmed, businessId, {
      status: 'paid',
      transaction_id: 'E00000000202501151200abcdefghijk',
      amount_centavos: 5050,
    });

    const [hit] = await waitFor(
      () => harness.receiver.hitsTo(path).length > 0 && harness.receiver.hitsTo(path),
      {
        what: 'the delivery',
      },
    );

    expect(JSON.parse(hit!.body.toString('utf8'))).toEqual({
      id: payload.event_id,
      type: 'payment.confirmed',
      created_at: payload.occurred_at,
      business_id: businessId,
      data: {
        payment_id: payload.payment.payment_id,
        transaction_id: 'E00000000202501151200abcdefghijk',
        business_id: businessId,
        method: 'pix',
        status: 'paid',
        amount_brl: 50.5,
        fee_brl: 1.99,
        net_amount_brl: 48.51,
        external_id: payload.payment.external_id,
        failure_code: null,
        failure_reason: null,
        description: null,
        customer_id: null,
        refunded_amount_brl: 0,
        expires_at: null,
        payer: null,
        subscription_id: null,
        cycle: null,
        created_at: payload.payment.created_at,
        updated_at: payload.payment.updated_at,
      },
    });
    expect(Object.keys(JSON.parse(hit!.body.toString('utf8')))).toEqual([
      'id',
      'type',
      'created_at',
      'business_id',
      'data',
    ]);
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['x-service-signature']).toBe(
      createHmac('sha256', webhook.secret).update(hit!.body).digest('hex'),
    );
    expect(hit!.headers['webhook-id']).toBe(payload.event_id);
    const standardHeaders = {
      'webhook-id': String(hit!.headers['webhook-id']),
      'webhook-timestamp': String(hit!.headers['webhook-timestamp']),
      'webhook-signature': String(hit!.headers['webhook-signature']),
    };
    expect(Math.abs(Number(standardHeaders['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(new StandardWebhook(webhook.secret).verify(hit!.body, standardHeaders)).toEqual(
      JSON.parse(hit!.body.toString('utf8')),
    );
    await waitFor(
      async () => {
        const [row] = await harness.query<{ status: string }>(
          'SELECT status FROM deliveries WHERE event_id = $1',
          [payload.event_id],
        );
        return row?.status === 'delivered';
      },
      { what: 'the delivery marked delivered' },
    );
  });

  test('every event is kept for the events API once; a webhook created after it never receives it, even on redelivery', async () => {
    const unsubscribed = newPublicId('biz');
    const envelope = createEnvelope(paymentConfirmed, aPaymentEvent({ business_id: unsubscribed }));
    await harness.client.publishEnvelope(envelope, {});
    const stored = () =>
      harness.query<{ business_id: string; type: string; body: string }>(
        'SELECT business_id, type, body FROM events WHERE id = $1',
        [envelope.payload.event_id],
      );
    const [row] = await waitFor(async () => (await stored()).length > 0 && stored(), {
      what: 'the event kept',
    });
    expect(row).toMatchObject({ business_id: unsubscribed, type: 'payment.confirmed' });
    expect(JSON.parse(row!.body)).toMatchObject({ id: envelope.payload.event_id, type: 'payment.confirmed' });
    expect(await countDeliveries(envelope.payload.event_id)).toBe(0);

    const path = uniquePath('subscribed-later');
    await harness.createWebhook(unsubscribed, harness.receiver.route(path, answers.status(200)));
    await harness.deliverPaymentEvent(paymentConfirmed, envelope.payload, envelope.id);
    // A later event reaches the same webhook: it was live when the redelivery was handled.
    const later = await harness.publishPaymentEvent(paymentConfirmed, unsubscribed);
    await waitFor(() => harness.receiver.hitsTo(path).length > 0, { what: 'the later event delivered' });
    expect(harness.receiver.hitsTo(path).map((hit) => JSON.parse(hit.body.toString('utf8')).id)).toEqual([
      later.payload.event_id,
    ]);
    expect(await countDeliveries(envelope.payload.event_id)).toBe(0);
    expect(await stored()).toHaveLength(1);
  });

  test('a webhook receives only the events it subscribed to, and only those of its own business', async () => {
    const businessId = newPublicId('biz');
    const confirmedOnly = uniquePath('confirmed-only');
    const everything = uniquePath('everything');
    const otherBusiness = uniquePath('other-business');
    await harness.createWebhook(businessId, harness.receiver.route(confirmedOnly, answers.status(200)), [
      'payment.confirmed',
    ]);
    await harness.createWebhook(businessId, harness.receiver.route(everything, answers.status(204)));
    await harness.createWebhook(
      newPublicId('biz'),
      harness.receiver.route(otherBusiness, answers.status(200)),
    );

    const eventIds: string[] = [];
    for (const definition of [paymentCreated, paymentConfirmed, paymentExpired, paymentFailed]) {
      eventIds.push((await harness.publishPaymentEvent(definition, businessId)).payload.event_id);
    }

    // Every event kept (with all its deliveries, in the same transaction) and every delivery of them sent.
    await waitFor(
      async () => {
        const [counts] = await harness.query<{ kept: number; unsent: number }>(
          `SELECT (SELECT count(*)::int FROM events WHERE id = ANY($1)) AS kept,
                  (SELECT count(*)::int FROM deliveries WHERE event_id = ANY($1) AND status <> 'delivered') AS unsent`,
          [eventIds],
        );
        return counts!.kept === eventIds.length && counts!.unsent === 0;
      },
      { what: 'all four events kept and their deliveries sent' },
    );
    const typesAt = (path: string): string[] =>
      harness.receiver.hitsTo(path).map((hit) => JSON.parse(hit.body.toString('utf8')).type as string);
    expect(typesAt(everything).sort()).toEqual([
      'payment.confirmed',
      'payment.created',
      'payment.expired',
      'payment.failed',
    ]);
    expect(typesAt(confirmedOnly)).toEqual(['payment.confirmed']);
    expect(typesAt(otherBusiness)).toEqual([]);
  });

  test('when the same event is delivered twice, one delivery is made and the receiver is called once', async () => {
    const { businessId, path } = await harness.businessWithEndpoint('dedupe', answers.status(200));
    const envelope = createEnvelope(paymentCreated, aPaymentEvent({ business_id: businessId }));

    await Promise.all([
      harness.deliverPaymentEvent(paymentCreated, envelope.payload, envelope.id),
      harness.deliverPaymentEvent(paymentCreated, envelope.payload, envelope.id),
      // The same event re-published under a new message id (an outbox replay after a crash) is still one delivery.
      harness.deliverPaymentEvent(paymentCreated, envelope.payload),
    ]);

    expect(await countDeliveries(envelope.payload.event_id)).toBe(1);
    await waitFor(
      async () => {
        const [row] = await harness.query<{ status: string }>(
          'SELECT status FROM deliveries WHERE event_id = $1',
          [envelope.payload.event_id],
        );
        return row?.status === 'delivered';
      },
      { what: 'the delivery sent' },
    );
    expect(harness.receiver.hitsTo(path)).toHaveLength(1);
  });

  test('a business with many webhooks gets one delivery at each for an event, however it is delivered again', async () => {
    const businessId = newPublicId('biz');
    // More webhooks than the delivery ids the dispatcher makes ahead for one event, plus one subscribed elsewhere.
    const paths = Array.from({ length: 9 }, (_, i) => uniquePath(`many-${i}`));
    for (const path of paths)
      await harness.createWebhook(businessId, harness.receiver.route(path, answers.status(200)));
    await harness.createWebhook(
      businessId,
      harness.receiver.route(uniquePath('many-other'), answers.status(200)),
      ['payment.expired'],
    );
    const envelope = createEnvelope(paymentCreated, aPaymentEvent({ business_id: businessId }));

    await Promise.all([
      harness.deliverPaymentEvent(paymentCreated, envelope.payload, envelope.id),
      harness.deliverPaymentEvent(paymentCreated, envelope.payload),
    ]);
    await harness.deliverPaymentEvent(paymentCreated, envelope.payload);

    const deliveries = await harness.query<{ id: string; webhook_id: string }>(
      'SELECT id, webhook_id FROM deliveries WHERE event_id = $1',
      [envelope.payload.event_id],
    );
    expect(deliveries).toHaveLength(paths.length);
    expect(new Set(deliveries.map((delivery) => delivery.webhook_id)).size).toBe(paths.length);
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(paths.length);
    for (const delivery of deliveries) expect(delivery.id).toMatch(/^dlv_[A-Za-z0-9_-]{24}$/);
    await waitFor(() => paths.every((path) => harness.receiver.hitsTo(path).length > 0), {
      what: 'every webhook called',
    });
    for (const path of paths) expect(harness.receiver.hitsTo(path)).toHaveLength(1);
  });

  test('a poison payment event is parked instead of being retried forever, and later events still flow', async () => {
    const { businessId, path } = await harness.businessWithEndpoint('after-poison', answers.status(200));
    const envelope = createEnvelope(paymentConfirmed, aPaymentEvent({ business_id: businessId }));
    const broken = { ...envelope, payload: { ...envelope.payload, payment: { amount_centavos: 'lots' } } };

    await harness.client.publishEnvelope(broken as never, {});

    const parked = await waitForParkedMessages(
      `${harness.env.config.AMQP_PREFIX}webhook-dispatcher.events.parking`,
      'the parked event',
    );
    expect(parked).toEqual([
      expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('payment') }),
    ]);
    expect(await countDeliveries(envelope.payload.event_id)).toBe(0);
    await harness.publishPaymentEvent(paymentConfirmed, businessId);
    await waitFor(() => harness.receiver.hitsTo(path).length === 1, { what: 'the next event delivered' });
  });

  test('after the dispatcher loses its broker connection it reconnects and delivers new events', async () => {
    const { businessId, path } = await harness.businessWithEndpoint('reconnect', answers.status(200));

    dispatcher.broker.dropConnectionForTesting();
    const { payload } = await waitFor(
      () => harness.publishPaymentEvent(paymentCreated, businessId).catch(() => undefined),
      { what: 'the test client publishing' },
    );

    await waitFor(() => harness.receiver.hitsTo(path).length === 1, {
      timeoutMs: 15_000,
      what: 'a delivery after the reconnect',
    });
    expect(harness.receiver.hitsTo(path)[0]!.headers['webhook-id']).toBe(payload.event_id);
  });

  test('a deleted webhook has its pending deliveries cancelled and receives nothing more', async () => {
    // The first attempt fails, so the delivery waits for its retry when the webhook is deleted.
    const { businessId, path, webhook } = await harness.businessWithEndpoint('deleted', answers.status(500));
    const first = await harness.publishPaymentEvent(paymentCreated, businessId);
    await waitFor(() => harness.receiver.hitsTo(path).length === 1, { what: 'the failed first attempt' });

    const reply = await harness.request(deleteWebhook, {
      business_id: businessId,
      webhook_id: webhook.webhook_id,
    });
    expect(reply).toEqual({ ok: true, result: { deleted: true } });
    // On a slow machine the retry can fall due before the delete commits: what was sent until the worker saw the
    // delete is allowed, nothing after.
    await harness.workerCaughtUp();
    const hitsWhenDeleted = harness.receiver.hitsTo(path).length;
    harness.receiver.route(path, answers.status(200));
    const second = await harness.publishPaymentEvent(paymentConfirmed, businessId);

    await waitFor(() => harness.eventKept(second.payload.event_id), { what: 'the later event kept' });
    // The failed attempts are recorded even though their delivery was cancelled meanwhile; the next retry would have
    // fallen due within the schedule's steps (200 ms then 400 ms, +20 % jitter) of that.
    await waitFor(
      async () =>
        (
          await harness.query(
            'SELECT 1 FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1',
            [webhook.webhook_id],
          )
        ).length === hitsWhenDeleted,
      { what: 'the failed attempts recorded' },
    );
    const retryDueBy = Date.now() + 480;
    await waitFor(() => Date.now() > retryDueBy, { what: 'the cancelled retry to fall due' });
    await harness.workerCaughtUp();
    expect(harness.receiver.hitsTo(path)).toHaveLength(hitsWhenDeleted);
    const rows = await harness.query<{ event_id: string; status: string }>(
      'SELECT event_id, status FROM deliveries WHERE webhook_id = $1',
      [webhook.webhook_id],
    );
    expect(rows).toEqual([{ event_id: first.payload.event_id, status: 'cancelled' }]);
    expect(await countDeliveries(second.payload.event_id)).toBe(0);
  });
});
