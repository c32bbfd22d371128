import { serviceNames, subscribedEventNames } from '@gateway/contracts';
import { DEFAULT_RETRY_SCHEDULE, TopologyNames } from '@gateway/messaging';

/**
 * The broker's own backstop for a consumer that crashes on a message before it can park it: the Broker declares every
 * consumer queue with `x-delivery-limit` = its `maxDeliveries` (5) + 1. A queue declared here with other arguments
 * would make every service's declaration fail (PRECONDITION_FAILED): rabbitmq-definitions.int.test.ts declares these
 * definitions and then the real Broker's on one broker, so a change on either side fails there.
 */
export const DELIVERY_LIMIT = 6;

/** The RabbitMQ definitions file's format (`rabbitmqctl import_definitions`, `POST /api/definitions`). */
export interface RabbitmqDefinitions {
  vhosts: Array<{ name: string }>;
  policies: Array<{
    vhost: string;
    name: string;
    pattern: string;
    'apply-to': 'queues';
    priority: number;
    definition: Record<string, string | number>;
  }>;
  exchanges: Array<{
    vhost: string;
    name: string;
    type: 'direct' | 'topic' | 'headers';
    durable: true;
    auto_delete: false;
    internal: false;
    arguments: Record<string, never>;
  }>;
  queues: Array<{
    vhost: string;
    name: string;
    durable: true;
    auto_delete: false;
    arguments: Record<string, string | number>;
  }>;
  bindings: Array<{
    vhost: string;
    source: string;
    destination: string;
    destination_type: 'queue';
    routing_key: string;
    arguments: Record<string, string>;
  }>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What the services declare when they start (packages/messaging topology.ts `declareAll`), as definitions applied at
 * deploy: the vhost, the four exchanges, the delay queues of the retry schedule, every queue a service may consume from
 * (`TopologyNames.consumerQueues(serviceNames)`) with its parking queue, their dead-letter and retry bindings, the
 * commands bindings, every event binding of `eventSubscriptions` (@gateway/contracts, the declaration every service
 * binds from when it connects), and a policy that keeps the delivery limit and dead-lettering on the consumer queues
 * should one ever be declared without its arguments (arguments win over a policy; both say the same here). An event
 * published before its consumer's first start waits in that consumer's queue.
 */
export function rabbitmqDefinitions(options: { vhost: string; prefix: string }): RabbitmqDefinitions {
  const { vhost, prefix } = options;
  const names = new TopologyNames(prefix);
  const exchange = (name: string, type: 'direct' | 'topic' | 'headers') =>
    ({ vhost, name, type, durable: true, auto_delete: false, internal: false, arguments: {} }) as const;
  const queue = (name: string, args: Record<string, string | number>) =>
    ({ vhost, name, durable: true, auto_delete: false, arguments: args }) as const;
  const binding = (
    source: string,
    destination: string,
    routingKey: string,
    args: Record<string, string> = {},
  ) =>
    ({
      vhost,
      source,
      destination,
      destination_type: 'queue',
      routing_key: routingKey,
      arguments: args,
    }) as const;

  const consumerQueues = names.consumerQueues(serviceNames);
  return {
    vhosts: [{ name: vhost }],
    policies: [
      {
        vhost,
        name: `${prefix}consumer-queues`,
        pattern: `^${escapeRegExp(prefix)}(${serviceNames.map(escapeRegExp).join('|')})\\.(commands|events)$`,
        'apply-to': 'queues',
        priority: 10,
        definition: { 'delivery-limit': DELIVERY_LIMIT, 'dead-letter-exchange': names.deadLetterExchange },
      },
    ],
    exchanges: [
      exchange(names.commandsExchange, 'direct'),
      exchange(names.eventsExchange, 'topic'),
      exchange(names.deadLetterExchange, 'direct'),
      exchange(names.retryExchange, 'headers'),
    ],
    queues: [
      ...DEFAULT_RETRY_SCHEDULE.tiersMs.map((delayMs) =>
        queue(names.delayQueue(delayMs), {
          'x-queue-type': 'quorum',
          'x-message-ttl': delayMs,
          'x-dead-letter-exchange': names.retryExchange,
        }),
      ),
      ...consumerQueues.flatMap((name) => [
        queue(names.parkingQueue(name), { 'x-queue-type': 'quorum' }),
        queue(name, {
          'x-queue-type': 'quorum',
          'x-delivery-limit': DELIVERY_LIMIT,
          'x-dead-letter-exchange': names.deadLetterExchange,
          'x-dead-letter-routing-key': name,
        }),
      ]),
    ],
    bindings: [
      ...serviceNames.map((service) => binding(names.commandsExchange, names.commandQueue(service), service)),
      ...serviceNames.flatMap((service) =>
        subscribedEventNames(service).map((event) =>
          binding(names.eventsExchange, names.eventQueue(service), event),
        ),
      ),
      ...consumerQueues.flatMap((name) => [
        binding(names.deadLetterExchange, names.parkingQueue(name), name),
        binding(names.retryExchange, name, '', { 'x-match': 'all', 'retry-queue': name }),
      ]),
    ],
  };
}
