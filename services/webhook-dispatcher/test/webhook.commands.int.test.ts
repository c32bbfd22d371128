import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  newPublicId,
  paymentCreated,
  retryWebhookDelivery,
  sendTestWebhook,
  type CommandDefinition,
  type Reply,
} from '@gateway/contracts';
import type { ServiceRuntime } from '@gateway/service-runtime';
import {
  connectionsIdleInTransaction,
  poisonCase,
  poisonedEnvelope,
  publishAndAwaitParking,
  waitFor,
} from '@gateway/testkit';
import { answers } from './support/receiver';
import { Harness } from './support/harness';

describe('webhook commands', () => {
  let harness: Harness;
  let dispatcher: ServiceRuntime;

  beforeAll(async () => {
    harness = await Harness.create('webhook-commands');
    dispatcher = await harness.startDispatcher();
  });

  afterAll(async () => {
    await harness.close();
  });

  const uniquePath = (label: string): string => `/${label}/${newPublicId('p')}`;
  const request = <P, R>(definition: CommandDefinition<P, R>, payload: P, messageId?: string) =>
    harness.request(definition, payload, { messageId });
  const countWebhooks = async (businessId: string): Promise<number> => {
    const [row] = await harness.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhooks WHERE business_id = $1',
      [businessId],
    );
    return row!.n;
  };
  /** A webhook whose endpoint answers 200, with `count` payment.created deliveries delivered to it. */
  const webhookWithDeliveries = async (count: number) => {
    const businessId = newPublicId('biz');
    const path = uniquePath('deliveries');
    const webhook = await harness.createWebhook(
      businessId,
      harness.receiver.route(path, answers.status(200)),
    );
    const eventIds: string[] = [];
    for (let i = 0; i < count; i += 1) {
      eventIds.push((await harness.publishPaymentEvent(paymentCreated, businessId)).payload.event_id);
      await waitFor(() => harness.receiver.hitsTo(path).length === i + 1, { what: `delivery ${i + 1}` });
    }
    return { businessId, path, webhook, eventIds };
  };

  describe('webhook.create.v1', () => {
    test('registers an active webhook and returns its whsec_ secret, which is stored only sealed', async () => {
      const businessId = newPublicId('biz');
      const reply = await request(createWebhook, {
        business_id: businessId,
        url: 'https://hooks.example.com/payments',
        events: ['payment.confirmed', 'payment.failed', 'payment.confirmed'],
      });

      expect(reply).toEqual({
        ok: true,
        result: {
          webhook_id: expect.stringMatching(/^wh_[A-Za-z0-9_-]{24}$/),
          business_id: businessId,
          url: 'https://hooks.example.com/payments',
          events: ['payment.confirmed', 'payment.failed'],
          status: 'active',
          created_at: expect.any(String),
          updated_at: expect.any(String),
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        },
      });
      const secret = reply.ok ? reply.result.secret : '';
      const [stored] = await harness.query<{ secret_sealed: string }>(
        'SELECT secret_sealed FROM webhooks WHERE business_id = $1',
        [businessId],
      );
      expect(stored!.secret_sealed).not.toContain(secret.slice('whsec_'.length));
      const inbox = await harness.query<{ result: unknown }>('SELECT result FROM inbox');
      expect(JSON.stringify(inbox)).not.toContain(secret);
    });

    test.each([
      ['an http:// url', { url: 'http://hooks.example.com/x' }, 'url'],
      ['a url that is not a URL', { url: 'hooks.example.com' }, 'url'],
      ['an unknown event name', { events: ['payment.refunded'] }, 'events'],
      ['no events', { events: [] }, 'events'],
    ])(
      'refuses %s with INVALID_FIELDS naming the field, and stores nothing',
      async (_label, change, field) => {
        const businessId = newPublicId('biz');
        const reply = await request(createWebhook, {
          business_id: businessId,
          url: 'https://hooks.example.com/x',
          events: ['payment.created'],
          ...change,
        });
        expect(reply).toEqual({
          ok: false,
          error: { code: 'INVALID_FIELDS', message: expect.stringContaining(field) },
        });
        expect(await countWebhooks(businessId)).toBe(0);
      },
    );

    test('when the same command is delivered twice, one webhook is created and both replies carry the same secret', async () => {
      const businessId = newPublicId('biz');
      const command = {
        business_id: businessId,
        url: 'https://hooks.example.com/x',
        events: ['payment.created'],
      };
      const messageId = newPublicId('cmd');
      const first = await request(createWebhook, command, messageId);
      const second = await request(createWebhook, command, messageId);
      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
      expect(await countWebhooks(businessId)).toBe(1);
    });
  });

  describe('webhook.delete.v1', () => {
    test('deletes the business own webhook; a second delete finds nothing', async () => {
      const businessId = newPublicId('biz');
      const webhook = await harness.createWebhook(businessId, 'https://hooks.example.com/x');
      const command = { business_id: businessId, webhook_id: webhook.webhook_id };

      expect(await request(deleteWebhook, command)).toEqual({ ok: true, result: { deleted: true } });
      const [stored] = await harness.query<{ status: string; deleted_at: Date | null }>(
        'SELECT status, deleted_at FROM webhooks WHERE id = $1',
        [webhook.webhook_id],
      );
      expect(stored).toEqual({ status: 'inactive', deleted_at: expect.any(Date) });
      expect(await request(deleteWebhook, command)).toEqual({
        ok: false,
        error: { code: 'NOT_FOUND', message: expect.any(String) },
      });
    });

    test('answers FORBIDDEN for another business webhook and NOT_FOUND for an unknown one, changing nothing', async () => {
      const webhook = await harness.createWebhook(newPublicId('biz'), 'https://hooks.example.com/x');

      const forbidden = await request(deleteWebhook, {
        business_id: newPublicId('biz'),
        webhook_id: webhook.webhook_id,
      });
      const missing = await request(deleteWebhook, {
        business_id: webhook.business_id,
        webhook_id: newPublicId('wh'),
      });

      expect(forbidden).toEqual({ ok: false, error: { code: 'FORBIDDEN', message: expect.any(String) } });
      expect(missing).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      const [stored] = await harness.query<{ status: string }>('SELECT status FROM webhooks WHERE id = $1', [
        webhook.webhook_id,
      ]);
      expect(stored!.status).toBe('active');
    });

    test('when the same delete is delivered twice, both replies are { deleted: true }', async () => {
      const webhook = await harness.createWebhook(newPublicId('biz'), 'https://hooks.example.com/x');
      const command = { business_id: webhook.business_id, webhook_id: webhook.webhook_id };
      const messageId = newPublicId('cmd');
      const first = await request(deleteWebhook, command, messageId);
      const second = await request(deleteWebhook, command, messageId);
      expect(first).toEqual({ ok: true, result: { deleted: true } });
      expect(second).toEqual(first);
    });
  });

  describe('webhook.deliveries.list.v1', () => {
    test('lists deliveries newest first with their attempts, a page at a time', async () => {
      const { businessId, webhook, eventIds } = await webhookWithDeliveries(3);
      await waitFor(
        async () => {
          const [row] = await harness.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1 AND status = 'delivered'`,
            [webhook.webhook_id],
          );
          return row!.n === 3;
        },
        { what: 'three delivered' },
      );
      const query = { business_id: businessId, webhook_id: webhook.webhook_id, limit: 2, cursor: null };

      const first = await request(listWebhookDeliveries, query);
      if (!first.ok) throw new Error(first.error.code);
      const second = await request(listWebhookDeliveries, { ...query, cursor: first.result.next_cursor });
      if (!second.ok) throw new Error(second.error.code);

      expect(first.result.data.map((d) => d.event_id)).toEqual([eventIds[2], eventIds[1]]);
      expect(first.result.next_cursor).toEqual(expect.any(String));
      expect(second.result.data.map((d) => d.event_id)).toEqual([eventIds[0]]);
      expect(second.result.next_cursor).toBeNull();
      expect(second.result.data[0]).toEqual({
        delivery_id: expect.stringMatching(/^dlv_/),
        event_id: eventIds[0],
        event_type: 'payment.created',
        status: 'delivered',
        next_attempt_at: null,
        created_at: expect.any(String),
        attempts: [
          {
            attempted_at: expect.any(String),
            status_code: 200,
            latency_ms: expect.any(Number),
            error: null,
            response_body: 'status 200',
          },
        ],
      });
    });

    test('answers NOT_FOUND for another business webhook, never revealing it exists', async () => {
      const webhook = await harness.createWebhook(newPublicId('biz'), 'https://hooks.example.com/x');
      const reply = await request(listWebhookDeliveries, {
        business_id: newPublicId('biz'),
        webhook_id: webhook.webhook_id,
        limit: 10,
        cursor: null,
      });
      expect(reply).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    });

    test('when the same query is delivered twice, both replies are the same', async () => {
      const { businessId, webhook } = await webhookWithDeliveries(1);
      const query = { business_id: businessId, webhook_id: webhook.webhook_id, limit: 10, cursor: null };
      const messageId = newPublicId('cmd');
      await waitFor(async () => {
        const reply = await request(listWebhookDeliveries, query);
        return reply.ok && reply.result.data[0]?.status === 'delivered';
      });
      const first = await request(listWebhookDeliveries, query, messageId);
      const second = await request(listWebhookDeliveries, query, messageId);
      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
    });
  });

  describe('webhook.delivery.retry.v1', () => {
    test('sends a delivered event again at once, with the same event id and body', async () => {
      const { businessId, path, webhook } = await webhookWithDeliveries(1);
      const [delivery] = await harness.query<{ id: string }>(
        'SELECT id FROM deliveries WHERE webhook_id = $1',
        [webhook.webhook_id],
      );
      await waitFor(async () => {
        const [row] = await harness.query<{ status: string }>('SELECT status FROM deliveries WHERE id = $1', [
          delivery!.id,
        ]);
        return row!.status === 'delivered';
      });

      const reply = await request(retryWebhookDelivery, {
        business_id: businessId,
        webhook_id: webhook.webhook_id,
        delivery_id: delivery!.id,
      });

      expect(reply).toEqual({ ok: true, result: { delivery_id: delivery!.id, status: 'pending' } });
      await waitFor(() => harness.receiver.hitsTo(path).length === 2, { what: 'the re-sent delivery' });
      const [original, resent] = harness.receiver.hitsTo(path);
      expect(resent!.headers['webhook-id']).toBe(original!.headers['webhook-id']);
      expect(resent!.body.equals(original!.body)).toBe(true);
    });

    test('answers NOT_FOUND for a delivery of another business or an unknown delivery', async () => {
      const { businessId, webhook } = await webhookWithDeliveries(1);
      const [delivery] = await harness.query<{ id: string }>(
        'SELECT id FROM deliveries WHERE webhook_id = $1',
        [webhook.webhook_id],
      );
      const otherBusiness = await request(retryWebhookDelivery, {
        business_id: newPublicId('biz'),
        webhook_id: webhook.webhook_id,
        delivery_id: delivery!.id,
      });
      const unknown = await request(retryWebhookDelivery, {
        business_id: businessId,
        webhook_id: webhook.webhook_id,
        delivery_id: newPublicId('dlv'),
      });
      expect(otherBusiness).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(unknown).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
    });

    test('when the same retry is delivered twice, the event is sent again once', async () => {
      const { businessId, path, webhook } = await webhookWithDeliveries(1);
      const [delivery] = await harness.query<{ id: string }>(
        'SELECT id FROM deliveries WHERE webhook_id = $1',
        [webhook.webhook_id],
      );
      const command = { business_id: businessId, webhook_id: webhook.webhook_id, delivery_id: delivery!.id };
      const messageId = newPublicId('cmd');
      const sentAgain = async () =>
        (
          await harness.query<{ status: string; attempt_count: number; lease_owner: string | null }>(
            'SELECT status, attempt_count, lease_owner FROM deliveries WHERE id = $1',
            [delivery!.id],
          )
        )[0];
      // The first attempt recorded before the retry: storing it would otherwise overwrite the retry's due time.
      await waitFor(async () => (await sentAgain())?.status === 'delivered', {
        what: 'the first attempt recorded',
      });
      const first = await request(retryWebhookDelivery, command, messageId);
      await waitFor(async () => (await sentAgain())?.attempt_count === 2, { what: 'the re-sent delivery' });
      const second = await request(retryWebhookDelivery, command, messageId);
      // Had the second made the delivery due again, the worker would have claimed it by now.
      await harness.workerCaughtUp();
      expect(second).toEqual(first);
      expect(harness.receiver.hitsTo(path)).toHaveLength(2);
      expect(await sentAgain()).toEqual({ status: 'delivered', attempt_count: 2, lease_owner: null });
    });
  });

  describe('webhook.test.v1', () => {
    test('sends a signed webhook.test event now and answers with the endpoint status', async () => {
      const businessId = newPublicId('biz');
      const path = uniquePath('test-event');
      const webhook = await harness.createWebhook(
        businessId,
        harness.receiver.route(path, answers.status(200), answers.status(500)),
      );
      const command = { business_id: businessId, webhook_id: webhook.webhook_id };

      const ok = await request(sendTestWebhook, command);
      const failing = await request(sendTestWebhook, command);

      expect(ok).toEqual({
        ok: true,
        result: { event_id: expect.stringMatching(/^evt_/), status_code: 200, error: null },
      });
      expect(failing).toEqual({ ok: true, result: expect.objectContaining({ status_code: 500 }) });
      const [hit] = harness.receiver.hitsTo(path);
      expect(JSON.parse(hit!.body.toString('utf8'))).toEqual({
        id: ok.ok ? ok.result.event_id : '',
        type: 'webhook.test',
        created_at: expect.any(String),
        business_id: businessId,
        data: { webhook_id: webhook.webhook_id },
      });
      expect(hit!.headers['x-service-signature']).toBe(
        createHmac('sha256', webhook.secret).update(hit!.body).digest('hex'),
      );
      expect(
        new StandardWebhook(webhook.secret).verify(hit!.body, {
          'webhook-id': String(hit!.headers['webhook-id']),
          'webhook-timestamp': String(hit!.headers['webhook-timestamp']),
          'webhook-signature': String(hit!.headers['webhook-signature']),
        }),
      ).toEqual(JSON.parse(hit!.body.toString('utf8')));
    });

    test('answers NOT_FOUND for another business webhook and sends nothing', async () => {
      const path = uniquePath('test-other');
      const webhook = await harness.createWebhook(
        newPublicId('biz'),
        harness.receiver.route(path, answers.status(200)),
      );
      const reply = await request(sendTestWebhook, {
        business_id: newPublicId('biz'),
        webhook_id: webhook.webhook_id,
      });
      expect(reply).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(harness.receiver.hitsTo(path)).toHaveLength(0);
    });

    test('when the same test command is delivered twice, the endpoint is called once and both replies match', async () => {
      const businessId = newPublicId('biz');
      const path = uniquePath('test-dedupe');
      const webhook = await harness.createWebhook(
        businessId,
        harness.receiver.route(path, answers.status(202)),
      );
      const command = { business_id: businessId, webhook_id: webhook.webhook_id };
      const messageId = newPublicId('cmd');
      const first = await request(sendTestWebhook, command, messageId);
      const second = await request(sendTestWebhook, command, messageId);
      expect(first).toEqual({ ok: true, result: expect.objectContaining({ status_code: 202 }) });
      expect(second).toEqual(first);
      expect(harness.receiver.hitsTo(path)).toHaveLength(1);
    });

    test('while the endpoint is slow to answer, no connection sits idle in a transaction', async () => {
      const businessId = newPublicId('biz');
      const path = uniquePath('test-slow');
      const webhook = await harness.createWebhook(
        businessId,
        harness.receiver.route(path, answers.delayed(1500, 200)),
      );
      const reply = request(sendTestWebhook, { business_id: businessId, webhook_id: webhook.webhook_id });
      await waitFor(() => harness.receiver.hitsTo(path).length === 1, { what: 'the endpoint called' });
      const idle: number[] = [];
      for (let sample = 0; sample < 5; sample += 1)
        idle.push(await connectionsIdleInTransaction(dispatcher.dataSource, harness.env.database.name));
      expect(idle).toEqual([0, 0, 0, 0, 0]);
      expect(await reply).toEqual({ ok: true, result: expect.objectContaining({ status_code: 200 }) });
    });
  });

  /**
   * A valid payload per command, built fresh for each table: the command's poison row, and the command sent as it is
   * under a message id with a short wait (as a caller retrying through a reconnect does).
   */
  const validCommands = () => {
    const business_id = newPublicId('biz');
    const webhook_id = newPublicId('wh');
    const command = <P extends object, R>(definition: CommandDefinition<P, R>, payload: P) => ({
      poison: poisonCase(definition, payload),
      send: (messageId: string): Promise<Reply<unknown>> =>
        harness.request(definition, payload, { timeoutMs: 1000, messageId }),
    });
    return [
      command(createWebhook, { business_id, url: 'https://hooks.example.com/x', events: [] }),
      command(deleteWebhook, { business_id, webhook_id }),
      command(listWebhookDeliveries, { business_id, webhook_id, limit: 5, cursor: null }),
      command(retryWebhookDelivery, { business_id, webhook_id, delivery_id: 'dlv_x' }),
      command(sendTestWebhook, { business_id, webhook_id }),
    ];
  };

  test.each(validCommands().map(({ poison }) => poison))(
    'a poison %s is parked instead of being retried forever',
    async (_name, definition, payload) => {
      const envelope = poisonedEnvelope(definition, payload, { business_id: 42 });
      const parked = await publishAndAwaitParking(
        harness.client,
        harness.env.config,
        'webhook-dispatcher',
        'commands',
        envelope,
      );
      expect(parked).toEqual([
        expect.objectContaining({ messageId: envelope.id, reason: expect.stringContaining('business_id') }),
      ]);
    },
  );

  test.each(validCommands().map(({ poison: [name], send }) => [name, send] as const))(
    'after the dispatcher loses its broker connection it answers %s again',
    async (_name, send) => {
      dispatcher.broker.dropConnectionForTesting();
      const messageId = newPublicId('cmd');
      const reply = await waitFor(() => send(messageId).catch(() => undefined), {
        timeoutMs: 15_000,
        what: 'a reply after the reconnect',
      });
      // Each payload is a valid command that the handler refuses for a business reason: an answer proves it ran.
      expect(reply).toEqual({
        ok: false,
        error: { code: expect.stringMatching(/^(INVALID_FIELDS|NOT_FOUND)$/), message: expect.any(String) },
      });
    },
  );
});
