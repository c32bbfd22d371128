import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { PaymentEventPayload } from '@gateway/contracts';
import { infrastructureUrls, waitFor } from '@gateway/testkit-core';
import {
  BrokerUnavailableError,
  CommandError,
  RpcTimeoutError,
  UnitOfWork,
  createEnvelope,
  type Broker,
} from '../src';
import {
  backboneForEachTest,
  awaitParked,
  customerCreated,
  customerPayload,
  eventPayload,
  sampleCommand,
  sampleEvent,
  unknownButWellFormed,
  type Backbone,
} from './backbone-fixture';

/** A subscriber whose handler records one effect per message inside the inbox transaction. */
async function subscribe(
  backbone: Backbone,
  broker: Broker,
  consumer: 'checkout' | 'webhook-dispatcher',
  beforeAck: (attempt: number) => void = () => undefined,
): Promise<void> {
  const inbox = new UnitOfWork(backbone.dataSource, consumer);
  await broker
    .handlers(consumer)
    .handle(sampleEvent, async (_payload: PaymentEventPayload, context) => {
      await inbox.once(context, async (tx) => {
        await tx.manager.query('INSERT INTO effects (consumer, message_id) VALUES ($1, $2)', [
          consumer,
          context.envelope.id,
        ]);
      });
      beforeAck(context.attempt);
    })
    .consume();
}

async function emitThroughOutbox(backbone: Backbone, uow: UnitOfWork, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const envelope = await uow.run({}, (tx) => tx.emit(sampleEvent, eventPayload(100 + n)));
    ids.push(envelope.id);
  }
  return ids;
}

describe('messaging backbone against the real broker', () => {
  const backbone = backboneForEachTest();

  test('an event written through the outbox reaches each subscriber exactly once, even when connections are dropped mid-stream', async () => {
    const publisher = await backbone.connectBroker('publisher');
    const subscriberBroker = await backbone.connectBroker('subscribers');
    await subscribe(backbone, subscriberBroker, 'checkout');
    await subscribe(backbone, subscriberBroker, 'webhook-dispatcher');
    const uow = new UnitOfWork(backbone.dataSource, 'publisher');
    backbone.relay(publisher, uow);

    const first = await emitThroughOutbox(backbone, uow, 20);
    publisher.dropConnectionForTesting();
    subscriberBroker.dropConnectionForTesting();
    const second = await emitThroughOutbox(backbone, uow, 20);
    const all = [...first, ...second];

    for (const consumer of ['checkout', 'webhook-dispatcher']) {
      const effects = await waitFor(
        async () => {
          const seen = await backbone.effects(consumer);
          return all.every((id) => seen.has(id)) ? seen : undefined;
        },
        { timeoutMs: 20_000, what: `all events at ${consumer}` },
      );
      expect([...effects.values()].every((n) => n === 1)).toBe(true);
      expect(effects.size).toBe(all.length);
    }
    const unpublished = await backbone.dataSource.query(
      'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
    );
    expect(unpublished[0].n).toBe(0);
  });

  test("when a consumer's connection drops between commit and ack, the redelivered event has no second effect", async () => {
    const publisher = await backbone.connectBroker('publisher');
    const subscriberBroker = await backbone.connectBroker('dying-subscriber');
    let deliveries = 0;
    await subscribe(backbone, subscriberBroker, 'checkout', (attempt) => {
      deliveries += 1;
      // Dies between commit and ack on the first delivery only.
      if (attempt === 1) subscriberBroker.dropConnectionForTesting();
    });
    const uow = new UnitOfWork(backbone.dataSource, 'publisher');
    backbone.relay(publisher, uow);

    const [id] = await emitThroughOutbox(backbone, uow, 1);

    await waitFor(() => deliveries >= 2, { timeoutMs: 20_000, what: 'redelivery after the drop' });
    const effects = await backbone.effects('checkout');
    expect(effects.get(id!)).toBe(1);
  });

  test('when a consumer process exits after committing but before acking, the redelivery has no second effect', async () => {
    const publisher = await backbone.connectBroker('publisher');
    const child = spawn(
      join(__dirname, '../../../node_modules/.bin/tsx'),
      [
        join(__dirname, 'support/dying-consumer.ts'),
        backbone.database.url,
        infrastructureUrls().amqpUrl,
        backbone.prefix,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const envelope = await publisher.publish(sampleEvent, eventPayload(107));
    expect(await exited).toBe(1);
    expect((await backbone.effects('checkout')).get(envelope.id)).toBe(1);

    const attempts: number[] = [];
    const successor = await backbone.connectBroker('successor');
    await subscribe(backbone, successor, 'checkout', (attempt) => attempts.push(attempt));
    await waitFor(() => attempts.length === 1, {
      timeoutMs: 20_000,
      what: 'the redelivery to the successor',
    });
    expect(attempts[0]).toBeGreaterThan(1);
    expect((await backbone.effects('checkout')).get(envelope.id)).toBe(1);
  });

  test('a poison message is parked with its error after the delivery limit while the messages behind it are processed', async () => {
    const broker = await backbone.connectBroker('poison', { maxDeliveries: 3 });
    const handled: number[] = [];
    let poisonAttempts = 0;
    await broker
      .handlers('checkout')
      .handle(sampleEvent, async (payload: PaymentEventPayload) => {
        if (payload.payment.amount_centavos === 100) {
          poisonAttempts += 1;
          throw new Error('cannot handle this one');
        }
        handled.push(payload.payment.amount_centavos);
      })
      // Binds the queue to it; no contract knows it, so its envelope is refused before any handler runs.
      .handle(unknownButWellFormed, async () => {
        throw new Error('handled a message no contract knows');
      })
      .consume();

    await broker.publish(sampleEvent, eventPayload(100));
    for (let n = 1; n <= 5; n += 1) await broker.publish(sampleEvent, eventPayload(100 + n));
    // Well-formed envelope of a message type no contract knows: parked at once, never handled.
    await broker.publishEnvelope(createEnvelope(unknownButWellFormed, { n: 1 }), {});

    await waitFor(() => handled.length === 5, { timeoutMs: 20_000, what: 'the messages behind the poison' });
    const parkedMessages = await awaitParked(backbone, 'checkout.events', 2, {
      timeoutMs: 20_000,
      what: 'two parked messages',
    });
    expect(poisonAttempts).toBe(3);
    const reasons = parkedMessages.map((m) => String(m.properties.headers?.['x-parked-reason']));
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringContaining('cannot handle this one'),
        expect.stringContaining('unknown message type backbone.test-only.v1'),
      ]),
    );
  });

  test('an RPC gets its reply, a business refusal comes back as an error reply, and a server that is down yields a timeout', async () => {
    const client = await backbone.connectBroker('rpc-client');
    const server = await backbone.connectBroker('rpc-server');
    const payload = customerPayload();
    await server
      .handlers('customer')
      .handle(sampleCommand, async (command) => {
        if (command.email === 'refuse@example.com')
          throw new CommandError('INVALID_FIELDS', 'Campos inválidos: email.');
        return customerCreated(command);
      })
      .consume();

    const ok = await client.request(sampleCommand, payload, { timeoutMs: 5000 });
    expect(ok.ok && ok.result.business_id).toBe(payload.business_id);
    const refused = await client.request(
      sampleCommand,
      { ...payload, email: 'refuse@example.com' },
      { timeoutMs: 5000 },
    );
    expect(refused).toEqual({
      ok: false,
      error: { code: 'INVALID_FIELDS', message: 'Campos inválidos: email.' },
    });

    await server.close();
    await expect(client.request(sampleCommand, payload, { timeoutMs: 300 })).rejects.toBeInstanceOf(
      RpcTimeoutError,
    );
  });

  test('a publish while the broker is unreachable fails fast and the outbox keeps the event until it is back', async () => {
    const publisher = await backbone.connectBroker('outage-publisher');
    const subscriberBroker = await backbone.connectBroker('outage-subscriber');
    await subscribe(backbone, subscriberBroker, 'checkout');
    const uow = new UnitOfWork(backbone.dataSource, 'publisher');
    const relay = backbone.relay(publisher, uow);
    await relay.stop();

    publisher.dropConnectionForTesting();
    await expect(publisher.publish(sampleEvent, eventPayload(101))).rejects.toBeInstanceOf(
      BrokerUnavailableError,
    );
    const [id] = await emitThroughOutbox(backbone, uow, 1);
    const waiting = await backbone.dataSource.query(
      'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
    );
    expect(waiting[0].n).toBe(1);

    relay.start();
    await waitFor(async () => (await backbone.effects('checkout')).get(id!) === 1, {
      timeoutMs: 20_000,
      what: 'the event after reconnect',
    });
  });
});
