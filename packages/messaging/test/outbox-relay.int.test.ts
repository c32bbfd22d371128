import {
  connectionsIdleInTransaction,
  infrastructureUrls,
  startTcpProxy,
  testLogger,
  waitFor,
  type TcpProxy,
} from '@gateway/testkit-core';
import { metricsRegistry } from '@gateway/observability';
import { OutboxRelay, UnitOfWork, type Broker } from '../src';
import { eventPayload, openBackbone, sampleEvent, type Backbone } from './backbone-fixture';

/** A gauge of this process's registry (one relay runs at a time in these tests). */
async function gaugeValue(name: string): Promise<number | undefined> {
  return (await metricsRegistry.getSingleMetric(name)?.get())?.values[0]?.value;
}

/** Counts every delivery of the sample event by message id, without deduplicating. */
async function countDeliveries(broker: Broker): Promise<Map<string, number>> {
  const deliveries = new Map<string, number>();
  await broker
    .handlers('checkout')
    .handle(sampleEvent, async (_payload: unknown, context) => {
      deliveries.set(context.envelope.id, (deliveries.get(context.envelope.id) ?? 0) + 1);
    })
    .consume();
  return deliveries;
}

describe('outbox relay', () => {
  let backbone: Backbone;
  let proxy: TcpProxy;
  let deliveries: Map<string, number>;
  /** A unit of work that nudges no relay: the tests drive the relays. */
  let uow: UnitOfWork;

  beforeAll(async () => {
    backbone = await openBackbone();
    const amqp = new URL(infrastructureUrls().amqpUrl);
    proxy = await startTcpProxy({ host: amqp.hostname, port: Number(amqp.port || 5672) });
    deliveries = await countDeliveries(await backbone.connectBroker('relay-subscriber'));
    uow = new UnitOfWork(backbone.dataSource, 'publisher');
  });

  afterAll(async () => {
    await backbone?.close();
    await proxy?.close();
  });

  afterEach(() => proxy.forward());

  /** `count` events committed together, so a relay claims them in one batch. */
  const emit = (count: number): Promise<string[]> =>
    uow.run({}, async (tx) => {
      const ids: string[] = [];
      for (let n = 0; n < count; n += 1) ids.push((await tx.emit(sampleEvent, eventPayload(100 + n))).id);
      return ids;
    });

  const unpublished = async (ids: string[]): Promise<Array<{ claimed: boolean }>> =>
    backbone.dataSource.query(
      `SELECT claimed_until IS NOT NULL AS claimed FROM outbox WHERE message_id = ANY($1) AND published_at IS NULL`,
      [ids],
    );

  const relayThrough = (broker: Broker, leaseMs: number) =>
    new OutboxRelay(backbone.dataSource, broker, { logger: testLogger('relay'), leaseMs });

  test('while the broker does not confirm, no connection sits idle in a transaction, and the rows go out once it does', async () => {
    const publisher = await backbone.connectBroker('stalled-publisher', {
      url: proxy.urlFor(infrastructureUrls().amqpUrl),
    });
    const relay = backbone.relay(publisher, uow, { leaseMs: 60_000 });
    proxy.pause();
    const ids = await emit(5);
    relay.nudge();
    const idleNow = () => connectionsIdleInTransaction(backbone.dataSource, backbone.database.name);
    // The relay is waiting on the broker: with the rows claimed, or (the fault this guards) inside a transaction.
    await waitFor(async () => (await idleNow()) > 0 || (await unpublished(ids)).every((row) => row.claimed), {
      what: 'the relay waiting on the broker',
    });
    const idle: number[] = [];
    for (let sample = 0; sample < 5; sample += 1) idle.push(await idleNow());
    expect(idle).toEqual([0, 0, 0, 0, 0]);
    expect(await unpublished(ids)).toHaveLength(5);

    await proxy.forward();
    await waitFor(() => ids.every((id) => deliveries.get(id) === 1), {
      timeoutMs: 20_000,
      what: 'the events delivered once the broker confirms',
    });
    await waitFor(async () => (await unpublished(ids)).length === 0, { what: 'the rows marked sent' });
    await relay.stop();
  });

  test('two relays draining at once never publish the same row (many tries)', async () => {
    const first = relayThrough(await backbone.connectBroker('relay-a'), 30_000);
    const second = relayThrough(await backbone.connectBroker('relay-b'), 30_000);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const ids = await emit(20);
      let published = 0;
      await waitFor(
        async () => {
          const counts = await Promise.all([first.drainOnce(), second.drainOnce()]);
          published += counts[0]! + counts[1]!;
          return (await unpublished(ids)).length === 0;
        },
        { intervalMs: 0, what: 'the batch drained by both relays' },
      );
      expect(published).toBe(ids.length);
      await waitFor(() => ids.every((id) => deliveries.has(id)), { what: 'every event delivered' });
      expect(ids.map((id) => deliveries.get(id))).toEqual(ids.map(() => 1));
    }
  });

  test('rows a relay claimed and could not publish are left alone until its lease ends, then another relay publishes them', async () => {
    const stalled = relayThrough(
      await backbone.connectBroker('dying-publisher', { url: proxy.urlFor(infrastructureUrls().amqpUrl) }),
      4000,
    );
    const healthy = relayThrough(await backbone.connectBroker('healthy-publisher'), 4000);
    proxy.pause();
    const ids = await emit(3);
    // It waits half its lease for confirms that never come, and keeps its claim.
    expect(await stalled.drainOnce()).toBe(0);
    expect(await unpublished(ids)).toEqual(ids.map(() => ({ claimed: true })));
    expect(await healthy.drainOnce()).toBe(0);
    // The stalled relay dies: what it was publishing never reaches the broker.
    await proxy.refuse();
    await waitFor(async () => (await healthy.drainOnce()) === ids.length, {
      what: 'the rows published by the other relay after the lease',
    });
    await waitFor(() => ids.every((id) => deliveries.has(id)), { what: 'every event delivered' });
    expect(ids.map((id) => deliveries.get(id))).toEqual(ids.map(() => 1));
  });

  test('the relay reports its backlog and the age of its oldest unsent row, also while the broker is away', async () => {
    const publisher = await backbone.connectBroker('gauged-publisher', {
      url: proxy.urlFor(infrastructureUrls().amqpUrl),
    });
    await proxy.refuse();
    await waitFor(() => !publisher.connected, { what: 'the publisher disconnected' });
    const emittedAt = Date.now();
    const ids = await emit(3);
    const relay = backbone.relay(publisher, uow);
    await waitFor(async () => ((await gaugeValue('outbox_unpublished_messages')) ?? 0) >= ids.length, {
      what: 'the backlog reported while the broker is away',
    });
    // Measured again every few seconds: the oldest row ages, in seconds, while nothing goes out.
    const age = await waitFor(
      async () => {
        const seconds = (await gaugeValue('outbox_oldest_unpublished_age_seconds')) ?? 0;
        return seconds >= 5 && seconds;
      },
      { timeoutMs: 20_000, what: 'the oldest unsent row reported 5 s old' },
    );
    expect(age).toBeLessThanOrEqual((Date.now() - emittedAt) / 1000 + 1);
    expect(await unpublished(ids)).toHaveLength(ids.length);

    await proxy.forward();
    await waitFor(() => ids.every((id) => deliveries.get(id) === 1), {
      timeoutMs: 20_000,
      what: 'the backlog published once the broker is back',
    });
    await waitFor(
      async () =>
        (await gaugeValue('outbox_unpublished_messages')) === 0 &&
        (await gaugeValue('outbox_oldest_unpublished_age_seconds')) === 0,
      { timeoutMs: 20_000, what: 'an empty backlog reported' },
    );
    await relay.stop();
  }, 90_000);
});
