import type { PaymentEventPayload } from '@gateway/contracts';
import { metricsRegistry } from '@gateway/observability';
import { takeParkedMessages, waitFor } from '@gateway/testkit-core';
import {
  CommandError,
  InvalidMessageError,
  NotYetError,
  RpcTimeoutError,
  UnitOfWork,
  type Broker,
} from '../src';
import {
  backboneForEachTest,
  customerCreated,
  customerPayload,
  eventPayload,
  sampleCommand,
  sampleEvent,
  type Backbone,
} from './backbone-fixture';

/** Fails with a real PostgreSQL serialization failure (SQLSTATE 40001), the moment's fault and not the message's. */
const serializationFailure = (backbone: Backbone) =>
  backbone.dataSource.query(
    `DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = 'serialization_failure'; END $$`,
  );

async function metricSample(name: string, labels: Record<string, string>) {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  return metric?.values.find((value) =>
    Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted),
  );
}

async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  return (await metricSample(name, labels))?.value ?? 0;
}

/** How many messages the parking queue of `queue` (named without prefix) holds. */
async function parkedIn(broker: Broker, queue: string): Promise<number | undefined> {
  return (await broker.listParked()).find((parked) => parked.queue === queue)?.parked;
}

describe('a transient failure is retried later, with growing delays, without holding up its queue', () => {
  const backbone = backboneForEachTest();

  test('an event failing transiently four times is delivered five times, ever further apart, while the events behind it are handled', async () => {
    // One message at a time: a retry waiting in the consumer would stop the queue. Five deliveries also exceed the
    // fixture's delivery limit (maxDeliveries 3): each retry is a new copy, which that backstop does not count.
    const broker = await backbone.connectBroker('retries', {
      prefetch: 1,
      retry: { tiersMs: [200, 400, 800, 1600], baseDelayMs: 200, maxDelayMs: 1600 },
    });
    const deliveries: Array<{ attempt: number; at: number }> = [];
    const handledBehind: number[] = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (payload: PaymentEventPayload, context) => {
        if (payload.payment.amount_centavos !== 100) {
          handledBehind.push(Date.now());
          return;
        }
        deliveries.push({ attempt: context.attempt, at: Date.now() });
        if (context.attempt <= 4) await serializationFailure(backbone);
      })
      .consume();

    await broker.publish(sampleEvent, eventPayload(100));
    await Promise.all(
      Array.from({ length: 10 }, (_, n) => broker.publish(sampleEvent, eventPayload(101 + n))),
    );

    await waitFor(() => deliveries.length === 5 && handledBehind.length === 10, {
      what: 'the fifth delivery and the events behind',
    });
    expect(deliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5]);
    const gaps = deliveries.slice(1).map((d, i) => d.at - deliveries[i]!.at);
    // Each retry waits at least its doubled delay. Only lower bounds: the broker expires a delay queue's head
    // late under load (a 800 ms wait was seen taking 2.2 s on a busy CI machine), so gaps need not be ordered.
    expect(gaps[0]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(400);
    expect(gaps[2]).toBeGreaterThanOrEqual(800);
    expect(gaps[3]).toBeGreaterThanOrEqual(1600);
    expect(Math.max(...handledBehind)).toBeLessThan(deliveries[1]!.at);
    expect(await takeParkedMessages(`${backbone.prefix}checkout.events.parking`)).toEqual([]);
  });

  test('an event whose predecessor is still on its way (NotYetError) waits for it beyond the bug budget, and is handled once it came', async () => {
    // The fixture parks an unknown failure (a bug) after 3 attempts; waiting for another message is none, however long.
    const broker = await backbone.connectBroker('not-yet', {
      prefetch: 1,
      retry: { tiersMs: [100, 200], baseDelayMs: 100, maxDelayMs: 200 },
    });
    const attempts: number[] = [];
    let handled = false;
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
        attempts.push(context.attempt);
        if (context.attempt <= 5) throw new NotYetError('its coming in was not posted yet');
        handled = true;
      })
      .consume();

    await broker.publish(sampleEvent, eventPayload(100));

    await waitFor(() => handled, { what: 'the event handled once what it waits for came' });
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await takeParkedMessages(`${backbone.prefix}checkout.events.parking`)).toEqual([]);
  });

  test('an event still failing transiently when the retry bound is reached is parked with its reason and counted', async () => {
    const broker = await backbone.connectBroker('bounded-retries', { retry: { retryForMs: 600 } });
    const queue = `${backbone.prefix}checkout.events`;
    const attempts: number[] = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
        attempts.push(context.attempt);
        await serializationFailure(backbone);
      })
      .consume();
    const parkedBefore = await metricValue('broker_messages_parked_total', { queue });

    const started = Date.now();
    const envelope = await broker.publish(sampleEvent, eventPayload(100));
    await waitFor(async () => (await parkedIn(broker, 'checkout.events')) === 1, {
      what: 'the parked event',
    });

    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(attempts.length).toBeGreaterThan(2);
    expect(await metricValue('broker_messages_parked_total', { queue })).toBe(parkedBefore + 1);
    // What the service's periodic measure reports (each service measures the queues it consumes).
    await broker.measureParked('checkout');
    expect(await metricValue('broker_parked_messages', { queue })).toBe(1);
    const [parked] = await takeParkedMessages(`${queue}.parking`);
    expect(parked?.messageId).toBe(envelope.id);
    expect(parked?.reason).toMatch(/still failing .* after the first failure: QueryFailedError: simulated/);
  });

  test('a failed event waiting in a delay queue is counted in the retry backlog of that delay queue', async () => {
    // A delay long enough for the event to be seen waiting in it.
    const broker = await backbone.connectBroker('retry-backlog', {
      retry: { tiersMs: [60_000], baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const delayQueue = `${backbone.prefix}retry.delay-60000ms`;
    const attempts: number[] = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
        attempts.push(context.attempt);
        await serializationFailure(backbone);
      })
      .consume();
    await broker.measureRetryBacklog();
    expect(await metricValue('broker_retry_backlog_messages', { queue: delayQueue })).toBe(0);

    await broker.publish(sampleEvent, eventPayload(100));
    await waitFor(
      async () => {
        await broker.measureRetryBacklog();
        return (await metricValue('broker_retry_backlog_messages', { queue: delayQueue })) === 1;
      },
      { what: 'the failed event counted in its delay queue' },
    );
    expect(attempts).toEqual([1]);
  });

  test('an event whose handler finds a dependency unavailable (SERVICE_UNAVAILABLE) is retried, never dropped', async () => {
    const broker = await backbone.connectBroker('rail-unavailable');
    const attempts: number[] = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
        attempts.push(context.attempt);
        if (context.attempt <= 2) throw new CommandError('SERVICE_UNAVAILABLE', 'O provedor não respondeu.');
      })
      .consume();

    await broker.publish(sampleEvent, eventPayload(100));

    await waitFor(() => attempts.length === 3, { what: 'the third attempt' });
    expect(attempts).toEqual([1, 2, 3]);
  });

  test('a command sent without a caller waiting (through an outbox) is retried like an event', async () => {
    const broker = await backbone.connectBroker('outbox-command');
    const attempts: number[] = [];
    await broker
      .handlers('customer')
      .handle(sampleCommand, async (command, context) => {
        attempts.push(context.attempt);
        if (context.attempt <= 3) await serializationFailure(backbone);
        return customerCreated(command);
      })
      .consume();

    await broker.publish(sampleCommand, customerPayload());

    await waitFor(() => attempts.length === 4, { what: 'the fourth attempt' });
    expect(attempts).toEqual([1, 2, 3, 4]);
  });
});

describe('an RPC command is never retried past the wait of its caller', () => {
  const backbone = backboneForEachTest();
  let server: Broker;
  let client: Broker;

  beforeEach(async () => {
    server = await backbone.connectBroker('rpc-server');
    client = await backbone.connectBroker('rpc-client');
  });

  test('a command failing transiently is retried while its caller waits, then answered SERVICE_UNAVAILABLE before it gives up, and nothing is parked', async () => {
    const attempts: number[] = [];
    await server
      .handlers('customer')
      .handle(sampleCommand, async (command, context) => {
        attempts.push(context.attempt);
        await serializationFailure(backbone);
        return customerCreated(command);
      })
      .consume();

    const started = Date.now();
    const reply = await client.request(sampleCommand, customerPayload(), { timeoutMs: 1500 });

    expect(reply).toEqual({
      ok: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Serviço temporariamente indisponível. Tente novamente.',
      },
    });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(attempts.length).toBeGreaterThan(1);
    expect(await takeParkedMessages(`${backbone.prefix}customer.commands.parking`)).toEqual([]);
  });

  test('a command failing transiently once gets its result on the retry', async () => {
    const attempts: number[] = [];
    await server
      .handlers('customer')
      .handle(sampleCommand, async (command, context) => {
        attempts.push(context.attempt);
        if (context.attempt === 1) await serializationFailure(backbone);
        return customerCreated(command);
      })
      .consume();

    const payload = customerPayload();
    const reply = await client.request(sampleCommand, payload, { timeoutMs: 1500 });

    expect(reply.ok && reply.result.business_id).toBe(payload.business_id);
    expect(attempts).toEqual([1, 2]);
  });

  test('a command that waited in its queue past its caller’s timeout is not run', async () => {
    const stale = customerPayload();
    const queue = `${backbone.prefix}customer.commands`;
    const expiredBefore = await metricValue('broker_commands_expired_total', { queue });
    await server.declareCommandQueue('customer');
    await expect(client.request(sampleCommand, stale, { timeoutMs: 200 })).rejects.toBeInstanceOf(
      RpcTimeoutError,
    );
    const ran: string[] = [];
    await server
      .handlers('customer')
      .handle(sampleCommand, async (command) => {
        ran.push(command.business_id);
        return customerCreated(command);
      })
      .consume();

    const fresh = customerPayload();
    const reply = await client.request(sampleCommand, fresh, { timeoutMs: 5000 });

    expect(reply.ok).toBe(true);
    expect(ran).toEqual([fresh.business_id]);
    expect(await metricValue('broker_commands_expired_total', { queue })).toBe(expiredBefore + 1);
  });
});

describe('parked messages are listed and re-driven by an operator', () => {
  const backbone = backboneForEachTest();

  test('a re-drive moves what is parked back to its queue with a fresh retry budget, and each message has one effect', async () => {
    const broker = await backbone.connectBroker('redrive', { retry: { retryForMs: 300 } });
    const operator = await backbone.connectBroker('operator');
    const inbox = new UnitOfWork(backbone.dataSource, 'checkout');
    const queue = `${backbone.prefix}checkout.events`;
    let broken = true;
    const attempts = new Map<string, number[]>();
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (payload: PaymentEventPayload, context) => {
        const id = context.envelope.id;
        attempts.set(id, [...(attempts.get(id) ?? []), context.attempt]);
        // 100 fails transiently until parked; 101 fails for good after its effect committed (as if its ack were
        // lost): its re-drive must not repeat the effect.
        if (broken && payload.payment.amount_centavos === 100) await serializationFailure(backbone);
        await inbox.once(context, async (tx) => {
          await tx.manager.query('INSERT INTO effects (consumer, message_id) VALUES ($1, $2)', [
            'checkout',
            id,
          ]);
        });
        if (broken) throw new InvalidMessageError('broken after its effect');
      })
      .consume();
    const redrivenBefore = await metricValue('broker_messages_redriven_total', { queue });

    const first = await broker.publish(sampleEvent, eventPayload(100));
    const second = await broker.publish(sampleEvent, eventPayload(101));
    await waitFor(async () => (await parkedIn(operator, 'checkout.events')) === 2, {
      what: 'two parked events',
    });
    expect(await operator.listParked()).toEqual([{ queue: 'checkout.events', parked: 2 }]);
    // An operator's listing (the gateway's admin API) reports no series of its own: the consuming service does.
    expect(await metricSample('broker_parked_messages', { queue })).toBeUndefined();
    await broker.measureParked('checkout');
    expect(await metricValue('broker_parked_messages', { queue })).toBe(2);

    broken = false;
    expect(await operator.redriveParked('checkout.events')).toEqual([
      { queue: 'checkout.events', parked: 2 },
    ]);

    const effects = await waitFor(
      async () => {
        const seen = await backbone.effects('checkout');
        return seen.size === 2 ? seen : undefined;
      },
      { what: 'both effects' },
    );
    expect(effects.get(first.id)).toBe(1);
    expect(effects.get(second.id)).toBe(1);
    const firstAttempts = attempts.get(first.id)!;
    expect(firstAttempts.length).toBeGreaterThan(2);
    expect(firstAttempts.slice(-2)).toEqual([firstAttempts.length - 1, 1]);
    expect(attempts.get(second.id)).toEqual([1, 1]);
    expect(await operator.listParked()).toEqual([{ queue: 'checkout.events', parked: 0 }]);
    expect(await metricValue('broker_messages_redriven_total', { queue })).toBe(redrivenBefore + 2);
    await broker.measureParked('checkout');
    expect(await metricValue('broker_parked_messages', { queue })).toBe(0);
  });

  test('messages parked again while a re-drive runs stay parked, and an unknown queue re-drives nothing', async () => {
    const broker = await backbone.connectBroker('redrive-again');
    const operator = await backbone.connectBroker('operator');
    const deliveries: string[] = [];
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
        deliveries.push(context.envelope.id);
        throw new InvalidMessageError('always refused');
      })
      .consume();
    for (let n = 0; n < 5; n += 1) await broker.publish(sampleEvent, eventPayload(100 + n));
    await waitFor(async () => (await parkedIn(operator, 'checkout.events')) === 5, {
      what: 'five parked events',
    });

    expect(await operator.redriveParked('payment.events')).toEqual([]);
    expect(await operator.redriveParked('no-such.queue')).toEqual([]);
    expect(await operator.redriveParked()).toEqual([{ queue: 'checkout.events', parked: 5 }]);

    await waitFor(async () => (await parkedIn(operator, 'checkout.events')) === 5, {
      what: 'the five events parked again',
    });
    expect(deliveries).toHaveLength(10);
  });
});
