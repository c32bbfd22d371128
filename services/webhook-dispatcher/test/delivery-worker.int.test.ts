import { randomBytes } from 'node:crypto';
import { newPublicId, paymentConfirmed, paymentCreated } from '@gateway/contracts';
import { aPaymentEvent, waitFor } from '@gateway/testkit';
import { paymentWebhookEvent, serializeDeliveryBody } from '../src/domain/payload';
import { Receiver, answers } from './support/receiver';
import { Harness, uniquePath } from './support/harness';

interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  lease_owner: string | null;
}

describe('delivery worker', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await Harness.create('webhook-worker');
  });

  afterEach(async () => {
    await harness.stopDispatchers();
    // Each test starts from an empty queue of work, whatever the previous one left scheduled.
    await harness.query(`UPDATE deliveries SET status = 'cancelled' WHERE status = 'pending'`);
  });

  afterAll(async () => {
    await harness.close();
  });

  const deliveryOf = async (eventId: string): Promise<DeliveryRow | undefined> =>
    (
      await harness.query<DeliveryRow>(
        'SELECT id, status, attempt_count, next_attempt_at, lease_owner FROM deliveries WHERE event_id = $1',
        [eventId],
      )
    )[0];
  const waitForStatus = (eventId: string, status: string, timeoutMs = 10_000): Promise<DeliveryRow> =>
    waitFor(
      async () => {
        const row = await deliveryOf(eventId);
        return row?.status === status ? row : undefined;
      },
      { timeoutMs, what: `delivery ${status}` },
    );
  const attemptsOf = (deliveryId: string) =>
    harness.query<{ status_code: number | null; error: string | null; worker_id: string }>(
      'SELECT status_code, error, worker_id FROM delivery_attempts WHERE delivery_id = $1 ORDER BY id',
      [deliveryId],
    );

  test.each([
    ['a 500', answers.status(500), 500, null],
    ['a timeout', answers.hang(), null, /^timeout: /],
    ['a connection reset', answers.reset(), null, /^connection: /],
  ])(
    'after %s the same event is retried, with the same id and body, until a 2xx',
    async (_label, failure, failedStatus, failedError) => {
      await harness.startDispatcher({
        WEBHOOK_TIMEOUT_MS: '500',
        WEBHOOK_RETRY_SCHEDULE: '200ms,400ms,800ms',
      });
      const { businessId, path } = await harness.businessWithEndpoint(
        'flaky',
        failure,
        failure,
        answers.status(200),
      );
      const { payload } = await harness.publishPaymentEvent(paymentCreated, businessId);

      const delivered = await waitForStatus(payload.event_id, 'delivered');

      const hits = harness.receiver.hitsTo(path);
      expect(hits).toHaveLength(3);
      expect(new Set(hits.map((hit) => hit.headers['webhook-id']))).toEqual(new Set([payload.event_id]));
      expect(hits.every((hit) => hit.body.equals(hits[0]!.body))).toBe(true);
      // The schedule's first step is 200 ms ±20%, the second 400 ms ±20%.
      expect(hits[1]!.receivedAt - hits[0]!.receivedAt).toBeGreaterThanOrEqual(150);
      expect(hits[2]!.receivedAt - hits[1]!.receivedAt).toBeGreaterThanOrEqual(300);
      expect(delivered).toMatchObject({ attempt_count: 3, next_attempt_at: null, lease_owner: null });
      const failed = {
        status_code: failedStatus,
        error: failedError === null ? null : expect.stringMatching(failedError),
      };
      expect(await attemptsOf(delivered.id)).toEqual([
        expect.objectContaining(failed),
        expect.objectContaining(failed),
        expect.objectContaining({ status_code: 200, error: null }),
      ]);
    },
  );

  test('when the schedule is exhausted the delivery is dead-lettered, kept, and not sent again', async () => {
    await harness.startDispatcher({ WEBHOOK_RETRY_SCHEDULE: '100ms,200ms' });
    const { businessId, path } = await harness.businessWithEndpoint('always-500', answers.status(500));
    const { payload } = await harness.publishPaymentEvent(paymentConfirmed, businessId);

    const dead = await waitForStatus(payload.event_id, 'dead');
    await harness.workerCaughtUp();

    expect(harness.receiver.hitsTo(path)).toHaveLength(3);
    expect(dead).toMatchObject({ attempt_count: 3, next_attempt_at: null });
    expect(await deliveryOf(payload.event_id)).toMatchObject({ status: 'dead', lease_owner: null });
    const attempts = await attemptsOf(dead.id);
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 500]);
  });

  test('Retry-After of a 503 is honoured over a shorter schedule step', async () => {
    await harness.startDispatcher({ WEBHOOK_RETRY_SCHEDULE: '100ms' });
    const { businessId, path } = await harness.businessWithEndpoint(
      'busy',
      answers.status(503, { 'retry-after': '1' }),
      answers.status(200),
    );
    const { payload } = await harness.publishPaymentEvent(paymentCreated, businessId);

    await waitForStatus(payload.event_id, 'delivered');

    const [first, second] = harness.receiver.hitsTo(path);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  test('a 410 Gone disables the webhook: the delivery is dead and later events are not delivered', async () => {
    await harness.startDispatcher();
    const { businessId, path, webhook } = await harness.businessWithEndpoint('gone', answers.status(410));
    const first = await harness.publishPaymentEvent(paymentCreated, businessId);

    const dead = await waitForStatus(first.payload.event_id, 'dead');
    const [stored] = await harness.query<{ status: string }>('SELECT status FROM webhooks WHERE id = $1', [
      webhook.webhook_id,
    ]);
    expect(stored!.status).toBe('inactive');
    expect(dead.attempt_count).toBe(1);

    const second = await harness.publishPaymentEvent(paymentConfirmed, businessId);
    await waitFor(() => harness.eventKept(second.payload.event_id), { what: 'the later event kept' });
    expect(await deliveryOf(second.payload.event_id)).toBeUndefined();
    await harness.workerCaughtUp();
    expect(harness.receiver.hitsTo(path)).toHaveLength(1);
  });

  test('an endpoint that hangs does not delay deliveries to a healthy endpoint', async () => {
    /** Long enough for six deliveries on a slow machine, so only waiting for the hang could exceed it. */
    const HANG_TIMEOUT_MS = 6_000;
    const healthyReceiver = await Receiver.start(harness.pki.server);
    try {
      await harness.startDispatcher({
        WEBHOOK_TIMEOUT_MS: String(HANG_TIMEOUT_MS),
        DELIVERY_LEASE_MS: String(2 * HANG_TIMEOUT_MS),
        WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: '2',
      });
      const businessId = newPublicId('biz');
      const hangingPath = uniquePath('hang');
      const healthyPath = uniquePath('healthy');
      await harness.createWebhook(businessId, harness.receiver.route(hangingPath, answers.hang()));
      await harness.createWebhook(businessId, healthyReceiver.route(healthyPath, answers.status(200)));
      const startedAt = Date.now();

      for (let i = 0; i < 6; i += 1) await harness.publishPaymentEvent(paymentCreated, businessId);

      await waitFor(() => healthyReceiver.hitsTo(healthyPath).length === 6, {
        timeoutMs: HANG_TIMEOUT_MS,
        what: 'six deliveries to the healthy endpoint',
      });
      // Had they queued behind the hanging requests, none would have gone before those timed out.
      expect(Date.now() - startedAt).toBeLessThan(HANG_TIMEOUT_MS);
      // The hanging endpoint holds only its own slots: at most two requests open, the rest waiting.
      expect(harness.receiver.hitsTo(hangingPath).length).toBeLessThanOrEqual(2);
    } finally {
      await harness.stopDispatchers();
      await healthyReceiver.stop();
    }
  });

  test('a delivery leased by a crashed worker is sent once its lease has expired, not before', async () => {
    await harness.startDispatcher();
    const { businessId, path, webhook } = await harness.businessWithEndpoint(
      'crashed-lease',
      answers.status(200),
    );
    const event = aPaymentEvent({ business_id: businessId });
    const body = serializeDeliveryBody(paymentWebhookEvent('payment.created', event)).toString('utf8');
    const leaseEndsAt = Date.now() + 1_000;
    // As a worker that claimed the row and then died would have left it.
    await harness.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event_type, body, status, attempt_count, next_attempt_at,
                               lease_owner, lease_expires_at)
       VALUES ($1, $2, $3, 'payment.created', $4, 'pending', 0, now(), 'crashed-worker', $5)`,
      [newPublicId('dlv'), webhook.webhook_id, event.event_id, body, new Date(leaseEndsAt)],
    );

    await waitForStatus(event.event_id, 'delivered');

    const hits = harness.receiver.hitsTo(path);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.receivedAt).toBeGreaterThanOrEqual(leaseEndsAt - 50);
    expect(hits[0]!.body.toString('utf8')).toBe(body);
  });

  test('a dispatcher stopped mid-delivery records the attempt, and another one completes the delivery', async () => {
    const first = await harness.startDispatcher({
      WEBHOOK_TIMEOUT_MS: '800',
      WEBHOOK_RETRY_SCHEDULE: '200ms',
    });
    const { businessId, path } = await harness.businessWithEndpoint(
      'stop-mid-delivery',
      answers.hang(),
      answers.status(200),
    );
    const { payload } = await harness.publishPaymentEvent(paymentCreated, businessId);
    await waitFor(() => harness.receiver.hitsTo(path).length === 1, { what: 'the first attempt in flight' });

    await harness.stopDispatcher(first);

    const pending = await deliveryOf(payload.event_id);
    expect(pending).toMatchObject({ status: 'pending', attempt_count: 1, lease_owner: null });
    expect((await attemptsOf(pending!.id))[0]!.error).toMatch(/^timeout/);
    await harness.startDispatcher();
    await waitForStatus(payload.event_id, 'delivered');
    expect(harness.receiver.hitsTo(path).map((hit) => hit.headers['webhook-id'])).toEqual([
      payload.event_id,
      payload.event_id,
    ]);
  });

  test('two dispatchers share the deliveries and never send one attempt twice', async () => {
    const workers = ['replica-a', 'replica-b'];
    await Promise.all(workers.map((id) => harness.startDispatcher({ WORKER_ID: id })));
    const { businessId, path } = await harness.businessWithEndpoint('replicas', answers.delayed(30));
    harness.receiver.maxConcurrentPerEvent = 0;

    const events = await Promise.all(
      Array.from({ length: 40 }, () => harness.publishPaymentEvent(paymentCreated, businessId)),
    );
    await waitFor(
      async () => {
        const [row] = await harness.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM deliveries WHERE event_id = ANY($1) AND status = 'delivered'`,
          [events.map((e) => e.payload.event_id)],
        );
        return row!.n === events.length;
      },
      { timeoutMs: 15_000, what: 'every delivery delivered' },
    );
    // A stop lets every attempt in flight finish: no send of these events is still on its way.
    await harness.stopDispatchers();

    const hitsPerEvent = new Map<string, number>();
    for (const hit of harness.receiver.hitsTo(path)) {
      const id = String(hit.headers['webhook-id']);
      hitsPerEvent.set(id, (hitsPerEvent.get(id) ?? 0) + 1);
    }
    expect(hitsPerEvent.size).toBe(events.length);
    expect([...hitsPerEvent.values()].every((n) => n === 1)).toBe(true);
    expect(harness.receiver.maxConcurrentPerEvent).toBe(1);
    const senders = await harness.query<{ worker_id: string }>(
      `SELECT DISTINCT a.worker_id FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.event_id = ANY($1) ORDER BY a.worker_id`,
      [events.map((e) => e.payload.event_id)],
    );
    expect(senders.map((s) => s.worker_id)).toEqual(workers);
  });

  test('in production a private target is refused (SSRF): the attempt is recorded and nothing is received', async () => {
    await harness.startDispatcher({
      APP_ENV: 'production',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_RETRY_SCHEDULE: '10s',
    });
    const { businessId, path } = await harness.businessWithEndpoint('ssrf', answers.status(200));
    const connectionsBefore = harness.receiver.connections;
    const { payload } = await harness.publishPaymentEvent(paymentCreated, businessId);

    const attempted = await waitFor(
      async () => {
        const row = await deliveryOf(payload.event_id);
        return row && row.attempt_count === 1 ? row : undefined;
      },
      { what: 'the refused attempt' },
    );

    expect(attempted.status).toBe('pending');
    const [attempt] = await attemptsOf(attempted.id);
    expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(/^ssrf_refused: /) });
    expect(harness.receiver.hitsTo(path)).toHaveLength(0);
    expect(harness.receiver.connections).toBe(connectionsBefore);
  });
});
