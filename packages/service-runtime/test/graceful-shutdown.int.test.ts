import amqp from 'amqplib';
import pino from 'pino';
import { paymentCreated as sampleEvent, type PaymentEventPayload } from '@gateway/contracts';
import { openServiceDatabase } from '@gateway/persistence';
import {
  aPaymentEvent,
  connectTestClient,
  deleteBrokerNames,
  infrastructureUrls,
  isolatedEnvironment,
  SERVICE_STOP_STAGE_LINES,
  startLoggingProcess,
  startTcpProxy,
  testLogger,
  waitFor,
  type IsolatedEnvironment,
  type LoggingProcess,
} from '@gateway/testkit';
import type { Broker, MessageContext } from '@gateway/messaging';
import { openServiceRuntime, ShutdownTimeoutError, type RuntimeConfig, type ServiceRuntime } from '../src';

const SCHEMA = 'shutdown';
/** A `payment.created.v1` payload of `amountCentavos`. */
const eventPayload = (amountCentavos: number) => aPaymentEvent({ amount_centavos: amountCentavos });
/** How long abandoning a stop out of time may take (its broker connection dropped), with room for a busy machine. */
const ABANDON_SLACK_MS = 3000;

type Handler = (payload: PaymentEventPayload, context: MessageContext) => Promise<void>;

interface Gate {
  opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Ready messages and consumers of a queue, as the broker counts them. */
async function queueState(queue: string): Promise<{ messageCount: number; consumerCount: number }> {
  const connection = await amqp.connect(infrastructureUrls().amqpUrl);
  try {
    const channel = await connection.createChannel();
    return await channel.checkQueue(queue);
  } finally {
    await connection.close();
  }
}

describe('a service stopping: its work in flight is finished, handed back or published, within its bound', () => {
  let env: IsolatedEnvironment;
  let client: Broker;
  let queue: string;
  const runtimes: ServiceRuntime[] = [];
  const gates: Gate[] = [];
  /** Every delivery a handler started, in order: which runtime, which message, which attempt. */
  let started: Array<{ runtime: string; messageId: string; attempt: number }>;

  beforeEach(async () => {
    env = await isolatedEnvironment('shutdown');
    client = await connectTestClient(env.config, 'shutdown-test-client');
    queue = client.names.eventQueue('checkout');
    started = [];
  });

  afterEach(async () => {
    gates.splice(0).forEach((g) => g.open());
    for (const runtime of runtimes.splice(0)) {
      await runtime.stop().catch(() => undefined);
      if (runtime.dataSource.isInitialized) await runtime.dataSource.destroy();
    }
    await client.close();
    await deleteBrokerNames(env.config.AMQP_PREFIX);
    await env.database.drop();
  });

  /**
   * A `checkout` runtime on the test's database and prefix; with a handler, it consumes `payment.created.v1`. Its log
   * lines go to `logged` when given.
   */
  async function openRuntime(
    label: string,
    handler?: Handler,
    config: Partial<RuntimeConfig> = {},
    logged?: Array<Record<string, unknown>>,
  ): Promise<ServiceRuntime> {
    const logger = logged
      ? pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) })
      : testLogger(label);
    const runtime = await openServiceRuntime({
      service: 'checkout',
      config: { ...env.config, ...config },
      schema: SCHEMA,
      entities: [],
      migrations: [],
      logger,
      // A sample service: it handles a sample event, not the checkout service's subscriptions.
      exactSubscriptions: false,
    });
    runtimes.push(runtime);
    if (handler)
      await runtime.broker
        .handlers('checkout')
        .handle(sampleEvent, async (payload: PaymentEventPayload, context: MessageContext) => {
          started.push({ runtime: label, messageId: context.envelope.id, attempt: context.attempt });
          await handler(payload, context);
        })
        .consume();
    return runtime;
  }

  /** A successor consuming the queue, and a marker published behind everything in it: resolves once it got there. */
  async function successorDrainsQueue(): Promise<string> {
    await openRuntime('successor', async () => undefined);
    const marker = await client.publish(sampleEvent, eventPayload(1));
    await waitFor(() => started.some((s) => s.messageId === marker.id), {
      timeoutMs: 15_000,
      what: 'the successor to reach the marker',
    });
    return marker.id;
  }

  test('a message being handled when the stop begins is finished and acked once; one sent after the consumer was cancelled waits for the next process', async () => {
    const release = gate();
    gates.push(release);
    const finished: string[] = [];
    const logged: Array<Record<string, unknown>> = [];
    const stopping = await openRuntime(
      'stopping',
      async (_payload, context) => {
        await release.opened;
        finished.push(context.envelope.id);
      },
      {},
      logged,
    );
    const inFlight = await client.publish(sampleEvent, eventPayload(100));
    await waitFor(() => started.length === 1, { what: 'the handler to start' });

    const stopped = stopping.stop();
    await waitFor(() => logged.some((line) => line.msg === 'stop: stopped taking new work'), {
      what: 'the consumer to be cancelled',
    });
    const afterCancel = await client.publish(sampleEvent, eventPayload(101));
    expect(finished).toEqual([]);
    release.open();
    await stopped;
    expect(finished).toEqual([inFlight.id]);
    // The stop names what it owes, for an operator (and the fault suite) to check it never comes back.
    expect(logged.find((line) => line.msg === 'stop: stopped taking new work')).toMatchObject({
      messagesInFlight: 1,
      messages: [{ queue, message_id: inFlight.id }],
    });

    const marker = await successorDrainsQueue();
    expect(started.map((s) => [s.runtime, s.messageId])).toEqual([
      ['stopping', inFlight.id],
      ['successor', afterCancel.id],
      ['successor', marker],
    ]);
  });

  test('deliveries that reach a stopping process after it cancelled its consumer are handled there, once, as first deliveries: none goes back to count as a failed one', async () => {
    const rabbit = new URL(infrastructureUrls().amqpUrl);
    const proxy = await startTcpProxy({ host: rabbit.hostname, port: Number(rabbit.port || 5672) });
    try {
      const logged: Array<Record<string, unknown>> = [];
      const stopping = await openRuntime(
        'stopping',
        async () => undefined,
        { AMQP_URL: proxy.urlFor(env.config.AMQP_URL) },
        logged,
      );
      // Held between the broker and the process: the broker has delivered them, the process has not seen them.
      proxy.pause();
      const sent = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => client.publish(sampleEvent, eventPayload(n))),
      );
      await waitFor(async () => (await queueState(queue)).messageCount === 0, {
        what: 'the broker to deliver them to the stopping process',
      });
      // The cancel goes out behind them: they reach the process before the broker confirms it.
      const stopped = stopping.stop();
      await proxy.forward();
      await stopped;
      expect(started.map((s) => s.messageId).sort()).toEqual(sent.map((e) => e.id).sort());
      expect(new Set(started.map((s) => `${s.runtime} attempt ${s.attempt}`))).toEqual(
        new Set(['stopping attempt 1']),
      );
      const owed = logged.find((line) => line.msg === 'stop: work in flight finished')
        ?.messagesDeliveredWhileStopping as Array<{ queue: string; message_id: string }>;
      expect(owed.map((m) => m.message_id).sort()).toEqual(sent.map((e) => e.id).sort());
      expect(new Set(owed.map((m) => m.queue))).toEqual(new Set([queue]));

      const marker = await successorDrainsQueue();
      expect(started.filter((s) => s.runtime === 'successor').map((s) => s.messageId)).toEqual([marker]);
    } finally {
      await proxy.close();
    }
  });

  test('a message acked just before the broker connection closes stays acked: it is not delivered again', async () => {
    const release = gate();
    gates.push(release);
    const stopping = await openRuntime('stopping', () => release.opened);
    await client.publish(sampleEvent, eventPayload(100));
    await waitFor(() => started.length === 1, { what: 'the handler to start' });

    // The handler ends, and its ack is the last thing sent before the connection closes.
    await stopping.broker.stopConsuming();
    const closed = stopping.broker.close();
    release.open();
    await closed;

    const marker = await successorDrainsQueue();
    expect(started.filter((s) => s.runtime === 'successor').map((s) => s.messageId)).toEqual([marker]);
  });

  test('rows committed to the outbox just before the stop are all published before it ends', async () => {
    const received = new Set<string>();
    const subscriber = await connectTestClient(env.config, 'shutdown-subscriber');
    try {
      await subscriber
        .handlers('webhook-dispatcher')
        .handle(sampleEvent, async (_payload: PaymentEventPayload, context: MessageContext) => {
          received.add(context.envelope.id);
        })
        .consume();
      const stopping = await openRuntime('stopping');
      // Ten relay batches: the relay's own loop is still on the first ones when the stop begins.
      const committed = await stopping.unitOfWork('shutdown-test').run({}, async (tx) => {
        const ids: string[] = [];
        for (let n = 0; n < 1000; n += 1) ids.push((await tx.emit(sampleEvent, eventPayload(n + 1))).id);
        return ids;
      });
      await stopping.stop();

      const database = await openServiceDatabase({
        url: env.database.url,
        schema: SCHEMA,
        entities: [],
        migrations: [],
      });
      try {
        const unpublished = (await database.query(
          `SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE published_at IS NULL`,
        )) as Array<{ n: number }>;
        expect(unpublished).toEqual([{ n: 0 }]);
      } finally {
        await database.destroy();
      }
      await waitFor(() => received.size === committed.length, {
        timeoutMs: 20_000,
        what: 'every committed event to arrive',
      });
    } finally {
      await subscriber.close();
    }
  });

  test('a handler that hangs does not hold the stop past SHUTDOWN_TIMEOUT_MS; its message goes to the next process', async () => {
    const boundMs = 1500;
    const hang = gate();
    gates.push(hang);
    const stopping = await openRuntime('stopping', () => hang.opened, { SHUTDOWN_TIMEOUT_MS: boundMs });
    const message = await client.publish(sampleEvent, eventPayload(100));
    await waitFor(() => started.length === 1, { what: 'the handler to start' });

    const began = Date.now();
    const error = await stopping.stop().then(
      () => undefined,
      (err: unknown) => err,
    );
    const tookMs = Date.now() - began;
    expect(error).toBeInstanceOf(ShutdownTimeoutError);
    expect(error).toMatchObject({
      stage: 'work in flight finished',
      stillRunning: expect.arrayContaining([expect.stringContaining(message.id)]),
    });
    expect(tookMs).toBeGreaterThanOrEqual(boundMs);
    expect(tookMs).toBeLessThan(boundMs + ABANDON_SLACK_MS);

    await successorDrainsQueue();
    const redelivered = started.filter((s) => s.runtime === 'successor' && s.messageId === message.id);
    expect(redelivered).toEqual([expect.objectContaining({ attempt: expect.any(Number) })]);
    expect(redelivered[0]!.attempt).toBeGreaterThan(1);
  });

  describe('as a process run by runUntilSignal, as every service is', () => {
    let running: LoggingProcess | undefined;

    afterEach(() => {
      running?.child.kill('SIGKILL');
      running = undefined;
    });

    /**
     * Starts support/signalled-service.ts; resolves once it consumes, or at once with `whileStarting` (it then takes
     * that long to start, once it has logged `starting`).
     */
    async function startProcess(shutdownTimeoutMs: number, whileStarting?: { startupMs: number }) {
      const started = startLoggingProcess(
        'packages/service-runtime/test/support/signalled-service.ts',
        { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        [
          env.database.url,
          env.config.AMQP_URL,
          env.config.AMQP_PREFIX,
          String(shutdownTimeoutMs),
          String(whileStarting?.startupMs ?? 0),
        ],
      );
      running = started;
      await waitFor(() => started.logged(whileStarting ? 'starting' : 'consuming').length === 1, {
        timeoutMs: 30_000,
        what: 'the process to start',
      });
      return started;
    }

    test('SIGTERM: the message in hand is finished, each stage is logged once with its time, the process exits 0; a second SIGTERM changes nothing', async () => {
      const service = await startProcess(10_000);
      const message = await client.publish(sampleEvent, eventPayload(1500));
      await waitFor(() => service.logged('handling').length === 1, { what: 'the handler to start' });

      service.child.kill('SIGTERM');
      await waitFor(() => service.logged('stopping').length === 1, { what: 'the stop to begin' });
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);

      expect(service.logged('already stopping')).toHaveLength(1);
      const stageLines = service.lines.filter((line) => String(line.msg).startsWith('stop: '));
      expect(stageLines.map((line) => line.msg)).toEqual(SERVICE_STOP_STAGE_LINES);
      for (const line of stageLines) expect(line.ms).toEqual(expect.any(Number));
      expect(service.logged('stopped')).toHaveLength(1);
      const handled = service.lines.findIndex((line) => line.msg === 'handled');
      expect(service.lines[handled]).toMatchObject({ message_id: message.id });
      expect(handled).toBeLessThan(service.lines.indexOf(stageLines[1]!));
      // Acked: nothing is left for the next process.
      expect(await queueState(queue)).toMatchObject({ messageCount: 0, consumerCount: 0 });
    });

    test('a handler outlasting SHUTDOWN_TIMEOUT_MS: the process logs what still ran and exits 1 at the bound; the message is back in its queue', async () => {
      const boundMs = 1000;
      const service = await startProcess(boundMs);
      const message = await client.publish(sampleEvent, eventPayload(60_000));
      await waitFor(() => service.logged('handling').length === 1, { what: 'the handler to start' });

      const began = Date.now();
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(1);
      const tookMs = Date.now() - began;

      expect(tookMs).toBeGreaterThanOrEqual(boundMs);
      expect(tookMs).toBeLessThan(boundMs + ABANDON_SLACK_MS);
      expect(service.logged('stop ran out of time: abandoning what still runs')).toEqual([
        expect.objectContaining({
          stage: 'work in flight finished',
          stillRunning: [expect.stringContaining(message.id)],
        }),
      ]);
      expect(service.logged('handled')).toEqual([]);
      await waitFor(async () => (await queueState(queue)).messageCount === 1, {
        what: 'the message to be back in its queue',
      });
    });

    test('SIGTERM while it starts: it finishes starting, then stops as after any SIGTERM and exits 0', async () => {
      const service = await startProcess(10_000, { startupMs: 2000 });
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);

      const messages = service.lines.map((line) => line.msg);
      expect(messages.indexOf('stopping once started')).toBeLessThan(messages.indexOf('consuming'));
      expect(messages.indexOf('consuming')).toBeLessThan(messages.indexOf('stopping'));
      expect(messages.filter((msg) => String(msg).startsWith('stop: '))).toEqual(SERVICE_STOP_STAGE_LINES);
      expect(await queueState(queue)).toMatchObject({ consumerCount: 0 });
    });

    test('Ctrl-C twice: the second SIGINT exits at once, saying so; the message in hand goes back to its queue', async () => {
      const service = await startProcess(30_000);
      await client.publish(sampleEvent, eventPayload(60_000));
      await waitFor(() => service.logged('handling').length === 1, { what: 'the handler to start' });

      service.child.kill('SIGINT');
      await waitFor(() => service.logged('stopping').length === 1, { what: 'the stop to begin' });
      const began = Date.now();
      service.child.kill('SIGINT');
      expect(await service.exited).toBe(130);

      expect(Date.now() - began).toBeLessThan(ABANDON_SLACK_MS);
      expect(
        service.logged('interrupted again: exiting at once, what was unacked is redelivered'),
      ).toHaveLength(1);
      expect(service.logged('handled')).toEqual([]);
      await waitFor(async () => (await queueState(queue)).messageCount === 1, {
        what: 'the message to be back in its queue',
      });
    });
  });
});

describe('RabbitMQ 3.10 quorum queues, as the stop relies on them', () => {
  test('a delivery handed back, by a nack or by closing its channel, comes again with its x-delivery-count raised: a stop handles what reached it instead', async () => {
    const connection = await amqp.connect(infrastructureUrls().amqpUrl);
    const queue = `delivery-count-${process.pid}-${Date.now()}`;
    try {
      const channel = await connection.createChannel();
      await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      const deliveryCounts: unknown[] = [];
      for (const handBack of ['nack', 'close'] as const) {
        channel.sendToQueue(queue, Buffer.from(handBack), { persistent: true });
        const consumer = await connection.createChannel();
        const delivered = new Promise<amqp.ConsumeMessage>((resolve) => {
          void consumer.consume(queue, (msg) => msg && resolve(msg));
        });
        const msg = await delivered;
        if (handBack === 'nack') {
          await consumer.cancel(msg.fields.consumerTag);
          consumer.nack(msg, false, true);
        }
        await consumer.close();
        const again = await waitFor(() => channel.get(queue, { noAck: true }).then((m) => m || undefined), {
          what: 'the message back in its queue',
        });
        deliveryCounts.push(again.properties.headers?.['x-delivery-count']);
      }
      expect(deliveryCounts).toEqual([1, 1]);
    } finally {
      const channel = await connection.createChannel();
      await channel.deleteQueue(queue);
      await connection.close();
    }
  });
});
