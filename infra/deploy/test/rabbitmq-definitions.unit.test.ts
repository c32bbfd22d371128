import { readFileSync } from 'node:fs';
import { serviceNames, subscribedEventNames } from '@gateway/contracts';
import { DEFAULT_RETRY_SCHEDULE, TopologyNames, consumerQueueNames } from '@gateway/messaging';
import { DELIVERY_LIMIT, rabbitmqDefinitions, type RabbitmqDefinitions } from '../src/rabbitmq-definitions';
import { DEFINITIONS_FILE, DEPLOYED_TOPOLOGY } from '../src/deployed-definitions';

const file = JSON.parse(readFileSync(DEFINITIONS_FILE, 'utf8')) as RabbitmqDefinitions;
const { prefix, vhost } = DEPLOYED_TOPOLOGY;
const names = new TopologyNames(prefix);
const consumerQueues = consumerQueueNames.map((queue) => `${prefix}${queue}`);

/** The file binds `destination` to `source` with `routing_key`. */
const expectBinding = (source: string, destination: string, routing_key: string) =>
  expect(file.bindings).toContainEqual(expect.objectContaining({ source, destination, routing_key }));

describe('infra/rabbitmq/definitions.json', () => {
  test('is what the topology gives for the deployed vhost and prefix (regenerate: write-rabbitmq-definitions)', () => {
    expect(file).toEqual(rabbitmqDefinitions(DEPLOYED_TOPOLOGY));
  });

  test('declares the vhost, and everything in it', () => {
    expect(file.vhosts).toEqual([{ name: vhost }]);
    for (const item of [...file.policies, ...file.exchanges, ...file.queues, ...file.bindings])
      expect(item.vhost).toBe(vhost);
  });

  test('declares every queue a service may consume from, its parking queue and the delay queues, all quorum', () => {
    const delayQueues = DEFAULT_RETRY_SCHEDULE.tiersMs.map((delayMs) => names.delayQueue(delayMs));
    expect(file.queues.map((q) => q.name).sort()).toEqual(
      [...consumerQueues, ...consumerQueues.map((q) => names.parkingQueue(q)), ...delayQueues].sort(),
    );
    for (const queue of file.queues) {
      expect(queue).toMatchObject({ durable: true, auto_delete: false });
      expect(queue.arguments['x-queue-type']).toBe('quorum');
    }
    expect(consumerQueues).toHaveLength(serviceNames.length * 2);
  });

  test('every consumer queue has the delivery limit and dead-letters to its own parking queue', () => {
    for (const queue of consumerQueues) {
      expect(file.queues.find((q) => q.name === queue)?.arguments).toEqual({
        'x-queue-type': 'quorum',
        'x-delivery-limit': DELIVERY_LIMIT,
        'x-dead-letter-exchange': names.deadLetterExchange,
        'x-dead-letter-routing-key': queue,
      });
      expectBinding(names.deadLetterExchange, names.parkingQueue(queue), queue);
    }
  });

  test('a delay queue holds a message for its tier, then returns it through the retry exchange', () => {
    for (const delayMs of DEFAULT_RETRY_SCHEDULE.tiersMs)
      expect(file.queues.find((q) => q.name === names.delayQueue(delayMs))?.arguments).toEqual({
        'x-queue-type': 'quorum',
        'x-message-ttl': delayMs,
        'x-dead-letter-exchange': names.retryExchange,
      });
    for (const queue of consumerQueues) expectBinding(names.retryExchange, queue, '');
  });

  test('the exchanges are the four the services publish and dead-letter to, durable', () => {
    expect(file.exchanges.map((e) => [e.name, e.type, e.durable])).toEqual([
      [names.commandsExchange, 'direct', true],
      [names.eventsExchange, 'topic', true],
      [names.deadLetterExchange, 'direct', true],
      [names.retryExchange, 'headers', true],
    ]);
    for (const service of serviceNames)
      expectBinding(names.commandsExchange, names.commandQueue(service), service);
  });

  test("binds each service's events queue to exactly the events its eventSubscriptions declare, and nothing else", () => {
    const eventBindings = file.bindings
      .filter((b) => b.source === names.eventsExchange)
      .map((b) => [b.destination, b.routing_key]);
    const declared = serviceNames.flatMap((service) =>
      subscribedEventNames(service).map((event) => [names.eventQueue(service), event]),
    );
    expect(eventBindings.sort()).toEqual(declared.sort());
    expect(subscribedEventNames('webhook-dispatcher')).toContain('payment.confirmed.v1');
    expect(eventBindings).toContainEqual([names.eventQueue('ledger'), 'payment.confirmed.v1']);
  });

  test('the quorum-queue policy covers exactly the consumer queues, with their delivery limit and dead-lettering', () => {
    expect(file.policies).toHaveLength(1);
    const policy = file.policies[0]!;
    const pattern = new RegExp(policy.pattern);
    expect(file.queues.map((q) => q.name).filter((name) => pattern.test(name))).toEqual(
      file.queues.map((q) => q.name).filter((name) => consumerQueues.includes(name)),
    );
    expect(policy).toMatchObject({ 'apply-to': 'queues' });
    expect(policy.definition).toEqual({
      'delivery-limit': DELIVERY_LIMIT,
      'dead-letter-exchange': names.deadLetterExchange,
    });
  });

  test('with a prefix, every name carries it and the policy matches only the prefixed queues', () => {
    const prefixed = rabbitmqDefinitions({ vhost: 'v', prefix: 'staging.' });
    for (const item of [...prefixed.exchanges, ...prefixed.queues])
      expect(item.name.startsWith('staging.')).toBe(true);
    const pattern = new RegExp(prefixed.policies[0]!.pattern);
    expect(pattern.test('staging.payment.commands')).toBe(true);
    expect(pattern.test('payment.commands')).toBe(false);
    expect(pattern.test('stagingXpayment.commands')).toBe(false);
  });
});
