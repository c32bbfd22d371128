import { paymentCreated } from '@gateway/contracts';
import { aPaymentEvent, connectTestClient, uniquePrefix, waitFor } from '@gateway/testkit';
import { PrivateBroker } from '../src';

type Broker = Awaited<ReturnType<typeof connectTestClient>>;

const CLUSTER_START_TIMEOUT_MS = 180_000;

/**
 * The services' broker connection against a real three-node RabbitMQ cluster (AMQP_URLS naming each node): when the
 * node a publisher or a consumer is connected to dies, the connection moves to another node, the consumer subscribes
 * again, and every confirmed publish reaches the consumer; the queues are quorum queues with a member on every node.
 */
describe('failover between the nodes of a RabbitMQ cluster', () => {
  let cluster: PrivateBroker;
  const brokers: Broker[] = [];

  beforeAll(async () => {
    cluster = await PrivateBroker.start({ nodes: 3 });
  }, CLUSTER_START_TIMEOUT_MS);

  afterAll(async () => {
    for (const broker of brokers) await broker.close().catch(() => undefined);
    await cluster?.stop();
  }, 60_000);

  const connect = async (name: string, prefix: string, urls = cluster.urls): Promise<Broker> => {
    const broker = await connectTestClient({ AMQP_URLS: urls, AMQP_PREFIX: prefix }, name);
    brokers.push(broker);
    return broker;
  };

  const nodeIndex = (broker: Broker): number => cluster.urls.indexOf(broker.nodeUrl ?? '');

  /** Publishes until the broker confirms, as the outbox relay does: a publish fails fast while there is no connection. */
  const publishConfirmed = (broker: Broker, amount: number): Promise<string> =>
    waitFor(
      () =>
        broker
          .publish(paymentCreated, aPaymentEvent({ amount_centavos: amount }))
          .then((envelope) => envelope.id)
          .catch(() => undefined),
      { timeoutMs: 60_000, intervalMs: 100, what: `the publish of ${amount} to be confirmed` },
    );

  test('a publisher and a consumer whose nodes die go on through the others; nothing confirmed is lost', async () => {
    const prefix = uniquePrefix('failover');
    const received = new Set<string>();
    const consumer = await connect('failover-consumer', prefix);
    await consumer
      .handlers('checkout')
      .handle(paymentCreated, async (_payload, context) => {
        received.add(context.envelope.id);
      })
      .consume();
    // The publisher knows the two other nodes only: it starts on one of them, so each node that dies is a different one.
    const consumerNode = nodeIndex(consumer);
    expect(consumerNode).toBeGreaterThanOrEqual(0);
    const publisher = await connect(
      'failover-publisher',
      prefix,
      cluster.urls.filter((_, i) => i !== consumerNode),
    );
    const publisherNode = nodeIndex(publisher);
    const confirmed: string[] = [];
    for (let n = 0; n < 20; n += 1) confirmed.push(await publishConfirmed(publisher, 1000 + n));

    // Every queue of the prefix is replicated on the three nodes.
    const members = [...(await cluster.queueMembers()).entries()].filter(([queue]) =>
      queue.startsWith(prefix),
    );
    expect(members.length).toBeGreaterThan(0);
    for (const [, nodes] of members) expect(nodes.sort()).toEqual(cluster.nodes.map((n) => n.node).sort());

    // The consumer's node dies while messages flow, and comes back.
    await cluster.killNode(consumerNode);
    for (let n = 0; n < 20; n += 1) confirmed.push(await publishConfirmed(publisher, 2000 + n));
    await waitFor(() => consumer.connected && nodeIndex(consumer) !== consumerNode, {
      timeoutMs: 30_000,
      what: 'the consumer to reconnect to another node',
    });
    await cluster.startNode(consumerNode);

    // Then the publisher's node.
    await cluster.killNode(publisherNode);
    for (let n = 0; n < 20; n += 1) confirmed.push(await publishConfirmed(publisher, 3000 + n));
    expect(nodeIndex(publisher)).not.toBe(publisherNode);
    expect(nodeIndex(publisher)).toBeGreaterThanOrEqual(0);
    await cluster.startNode(publisherNode);

    await waitFor(() => confirmed.every((id) => received.has(id)), {
      timeoutMs: 60_000,
      what: `every confirmed publish to reach the consumer (${confirmed.length})`,
    });
    expect(new Set(confirmed).size).toBe(confirmed.length);
  }, 240_000);
});
