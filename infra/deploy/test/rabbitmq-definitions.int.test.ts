import amqp, { type ChannelModel } from 'amqplib';
import { serviceNames, subscribedEventNames } from '@gateway/contracts';
import { Broker, DEFAULT_RETRY_SCHEDULE, TopologyNames } from '@gateway/messaging';
import { deleteBrokerNames, infrastructureUrls, testLogger, uniquePrefix, waitFor } from '@gateway/testkit';
import { rabbitmqDefinitions } from '../src/rabbitmq-definitions';
import { declareDefinitions } from './support/rabbitmq-declare';

/**
 * The definitions declared first (as the deploy step does), then the services' own Broker on the same broker: a queue
 * of the definitions with other arguments than the Broker's would fail its declaration with PRECONDITION_FAILED.
 */
describe('the RabbitMQ definitions on a real broker', () => {
  const prefix = uniquePrefix('deploy');
  const names = new TopologyNames(prefix);
  // Under a test prefix in the broker's default vhost: the vhost itself is the deploy step's to create.
  const definitions = rabbitmqDefinitions({ vhost: '/', prefix });
  let model: ChannelModel;

  /** Waits for a message to reach `queue`, and takes it. */
  async function receivedBy(queue: string, timeoutMs = 5000): Promise<string> {
    const channel = await model.createChannel();
    try {
      return await waitFor(
        async () => {
          const message = await channel.get(queue, { noAck: true });
          return message && message.content.toString();
        },
        { timeoutMs, what: `a message in ${queue}` },
      );
    } finally {
      await channel.close();
    }
  }

  beforeAll(async () => {
    model = await amqp.connect(infrastructureUrls().amqpUrl);
  });

  afterAll(async () => {
    await model.close();
    await deleteBrokerNames(prefix);
  });

  test('the services declare their topology on top of them: same queues, same arguments', async () => {
    await declareDefinitions(model, definitions);
    const broker = await Broker.connect({
      urls: [infrastructureUrls().amqpUrl],
      prefix,
      connectionName: 'deploy-definitions-test',
      logger: testLogger(),
      wholeTopology: true,
    });
    // Connecting declares the whole topology: every queue, with the same arguments, and every event binding.
    await broker.close();
    // And the other way round: the definitions applied again (every deploy) over what the services declared.
    await expect(declareDefinitions(model, definitions)).resolves.toBeUndefined();
  });

  /**
   * Publishes every event some service subscribes to (and one nobody does) to the events exchange of `routedPrefix`,
   * then takes what reached each service's events queue: which event names each service would receive.
   */
  async function eventRouting(routedPrefix: string): Promise<Record<string, string[]>> {
    const routed = new TopologyNames(routedPrefix);
    const events = [...new Set(serviceNames.flatMap((service) => subscribedEventNames(service)))];
    const channel = await model.createConfirmChannel();
    for (const name of [...events, 'nobody.subscribes.v1'])
      channel.publish(routed.eventsExchange, name, Buffer.from(name));
    await channel.waitForConfirms();
    const expected = serviceNames.reduce((sum, service) => sum + subscribedEventNames(service).length, 0);
    const received: Record<string, string[]> = Object.fromEntries(
      serviceNames.map((service) => [service, []]),
    );
    let count = 0;
    await waitFor(
      async () => {
        for (const service of serviceNames)
          for (;;) {
            const message = await channel.get(routed.eventQueue(service), { noAck: true });
            if (!message) break;
            received[service]!.push(message.content.toString());
            count += 1;
          }
        return count >= expected;
      },
      { what: `${expected} event copies in the events queues` },
    );
    await channel.close();
    return Object.fromEntries(Object.entries(received).map(([service, names]) => [service, names.sort()]));
  }

  const declaredRouting = () =>
    Object.fromEntries(serviceNames.map((service) => [service, subscribedEventNames(service).sort()]));

  test('before any service ever ran, the definitions route every event to the queue of each service that consumes it', async () => {
    await declareDefinitions(model, definitions);
    expect(await eventRouting(prefix)).toEqual(declaredRouting());
  });

  test('a service connecting alone to an empty broker binds the same events to the same queues', async () => {
    const alone = uniquePrefix('deploy-alone');
    try {
      const broker = await Broker.connect({
        urls: [infrastructureUrls().amqpUrl],
        prefix: alone,
        connectionName: 'deploy-definitions-test-alone',
        logger: testLogger(),
        wholeTopology: true,
      });
      await broker.close();
      expect(await eventRouting(alone)).toEqual(declaredRouting());
    } finally {
      await deleteBrokerNames(alone);
    }
  });

  test('a command reaches its service, a dead-lettered message its parking queue, a retry its queue', async () => {
    await declareDefinitions(model, definitions);
    const channel = await model.createConfirmChannel();
    const queue = names.commandQueue('payment');
    channel.publish(names.commandsExchange, 'payment', Buffer.from('command'));
    await channel.waitForConfirms();
    expect(await receivedBy(queue)).toBe('command');

    channel.publish(names.deadLetterExchange, queue, Buffer.from('parked'));
    await channel.waitForConfirms();
    expect(await receivedBy(names.parkingQueue(queue))).toBe('parked');

    const eventQueue = names.eventQueue('webhook-dispatcher');
    channel.publish(names.retryExchange, '', Buffer.from('retried'), {
      headers: { 'retry-queue': eventQueue },
    });
    await channel.waitForConfirms();
    expect(await receivedBy(eventQueue)).toBe('retried');
    await channel.close();
  });

  test('a delay queue returns its message to the queue named in its retry header once its time is up', async () => {
    await declareDefinitions(model, definitions);
    const channel = await model.createConfirmChannel();
    const queue = names.commandQueue('customer');
    const delayMs = DEFAULT_RETRY_SCHEDULE.tiersMs[0]!;
    const sentAt = Date.now();
    channel.sendToQueue(names.delayQueue(delayMs), Buffer.from('later'), {
      headers: { 'retry-queue': queue },
    });
    await channel.waitForConfirms();
    expect(await receivedBy(queue, delayMs + 5000)).toBe('later');
    // Not before its time (give or take the broker's timer granularity).
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(delayMs - 50);
    await channel.close();
  });
});
