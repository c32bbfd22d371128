import amqp, { type Channel } from 'amqplib';
import { findMessage, serviceNames, subscribedEventNames, type ServiceName } from '@gateway/contracts';
import type { BrokerConnection } from './connection';
import { RETRY_QUEUE } from './message-headers';

/** Every broker name derives from a prefix, so test runs and deployments sharing a broker never see each other. */
export class TopologyNames {
  constructor(readonly prefix: string = '') {}

  get commandsExchange(): string {
    return `${this.prefix}commands`;
  }
  get eventsExchange(): string {
    return `${this.prefix}events`;
  }
  get deadLetterExchange(): string {
    return `${this.prefix}dead-letter`;
  }
  /** Where delayed retries return from their delay queue, routed by their `x-retry-queue` header. */
  get retryExchange(): string {
    return `${this.prefix}retry`;
  }
  /** A delay queue: every message waits `delayMs` in it, then returns through the retry exchange. */
  delayQueue(delayMs: number): string {
    return `${this.prefix}retry.delay-${delayMs}ms`;
  }
  commandQueue(service: ServiceName): string {
    return `${this.prefix}${service}.commands`;
  }
  eventQueue(service: ServiceName): string {
    return `${this.prefix}${service}.events`;
  }
  parkingQueue(queue: string): string {
    return `${queue}.parking`;
  }
  /** The queues `services` consume from (each with its parking queue). */
  consumerQueues(services: readonly ServiceName[]): string[] {
    return services.flatMap((service) => [this.commandQueue(service), this.eventQueue(service)]);
  }
}

/** Every queue a service of the stack may consume from, named without prefix (as operators name them). */
export const consumerQueueNames: readonly string[] = new TopologyNames().consumerQueues(serviceNames);

/** Where a message is published. */
export interface MessageRoute {
  exchange: string;
  routingKey: string;
}

/** Commands go to the handling service's queue, events to the topic exchange under their name. */
export function messageRoute(names: TopologyNames, name: string): MessageRoute {
  const definition: { name: string; kind?: string; handledBy?: ServiceName } = findMessage(name) ?? { name };
  const command = definition.kind === 'command' || definition.handledBy !== undefined;
  if (command) return { exchange: names.commandsExchange, routingKey: definition.handledBy as string };
  return { exchange: names.eventsExchange, routingKey: definition.name };
}

export interface TopologyOptions {
  names: TopologyNames;
  /** The delay queues' TTLs (RetrySchedule.tiersMs). */
  retryTiersMs: readonly number[];
  /** The queues' `x-delivery-limit` is one more: the backstop for consumers that crash on a message. */
  maxDeliveries: number;
  /** Whether to declare the whole topology of the stack, not only the queues consumed here (BrokerOptions). */
  wholeTopology: boolean;
}

/**
 * The exchanges and queues a process declares, idempotently, now and after every reconnect: the commands, events,
 * dead-letter and retry exchanges, the delay queues, and consumer queues with their parking queues and bindings. A
 * service of the stack declares them all (`wholeTopology`): every service's commands and events queue, and every event
 * binding of `eventSubscriptions` (@gateway/contracts), so whichever process starts first, an event it publishes
 * reaches the queue of every service that consumes it, even one that has never run. Otherwise (tests' stand-ins) only
 * the queues consumed here, bound to the events their handlers name, are declared.
 */
export class BrokerTopology {
  private readonly commandQueues = new Set<ServiceName>();
  /** The events queues consumed here, with the event names their handlers bound (besides any declared ones). */
  private readonly eventBindings = new Map<ServiceName, Set<string>>();

  constructor(
    private readonly connection: BrokerConnection,
    private readonly options: TopologyOptions,
  ) {}

  /** Declares (idempotently, now and after every reconnect) the commands queue of a service. */
  async declareCommandQueue(service: ServiceName): Promise<void> {
    this.commandQueues.add(service);
    const channel = this.connection.publishChannel;
    if (channel) await this.declareCommandQueueOn(channel, service);
  }

  /** Declares a service's events queue, bound to these event names besides those it was bound to before. */
  async declareEventQueue(service: ServiceName, names: readonly string[]): Promise<void> {
    const bindings = this.eventBindings.get(service) ?? new Set<string>();
    for (const name of names) bindings.add(name);
    this.eventBindings.set(service, bindings);
    // The connection's readying declared everything known then (declareAll); only this queue and its bindings are new.
    const channel = this.connection.publishChannel;
    if (channel) await this.declareEventQueueOn(channel, service, this.bindingsOf(service));
  }

  /** The services whose commands queue is declared here. */
  private commandServices(): readonly ServiceName[] {
    return this.options.wholeTopology ? serviceNames : [...this.commandQueues];
  }

  /** The services whose events queue is declared here, each with the event names it is bound to. */
  private eventServices(): Array<[ServiceName, string[]]> {
    const services = this.options.wholeTopology ? serviceNames : [...this.eventBindings.keys()];
    return services.map((service) => [service, this.bindingsOf(service)]);
  }

  /** The event names a service's events queue is bound to: its declared subscriptions and what its handlers bound. */
  private bindingsOf(service: ServiceName): string[] {
    const declared = this.options.wholeTopology ? subscribedEventNames(service) : [];
    return [...new Set([...declared, ...(this.eventBindings.get(service) ?? [])])];
  }

  /** Declares everything on `channel` (part of readying a new connection). */
  async declareAll(channel: Channel): Promise<void> {
    const { names } = this.options;
    await channel.assertExchange(names.commandsExchange, 'direct', { durable: true });
    await channel.assertExchange(names.eventsExchange, 'topic', { durable: true });
    await channel.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
    await channel.assertExchange(names.retryExchange, 'headers', { durable: true });
    for (const delayMs of this.options.retryTiersMs) {
      await channel.assertQueue(names.delayQueue(delayMs), {
        durable: true,
        arguments: {
          'x-queue-type': 'quorum',
          'x-message-ttl': delayMs,
          'x-dead-letter-exchange': names.retryExchange,
          // At-most-once dead-lettering (the default): RabbitMQ 3.10's at-least-once dead-letter workers crash when
          // such queues are deleted and can take every quorum queue of the node down with them
          // (rabbitmq-server#16652). A retry lost in a broker crash is caught by the payment reconciliation.
        },
      });
    }
    for (const service of this.commandServices()) await this.declareCommandQueueOn(channel, service);
    for (const [service, bindings] of this.eventServices())
      await this.declareEventQueueOn(channel, service, bindings);
  }

  private async declareCommandQueueOn(channel: Channel, service: ServiceName): Promise<void> {
    const { names } = this.options;
    const queue = names.commandQueue(service);
    await this.declareConsumerQueue(channel, queue);
    await channel.bindQueue(queue, names.commandsExchange, service);
  }

  private async declareEventQueueOn(
    channel: Channel,
    service: ServiceName,
    bindings: readonly string[],
  ): Promise<void> {
    const { names } = this.options;
    const queue = names.eventQueue(service);
    await this.declareConsumerQueue(channel, queue);
    for (const name of bindings) await channel.bindQueue(queue, names.eventsExchange, name);
  }

  /** Deletes every queue and exchange declared here, over a connection of its own (test clean-up). */
  async deleteDeclared(url: string): Promise<void> {
    const { names } = this.options;
    const model = await amqp.connect(url, { noDelay: true });
    try {
      const channel = await model.createChannel();
      const queues = [
        ...this.commandServices().map((service) => names.commandQueue(service)),
        ...this.eventServices().map(([service]) => names.eventQueue(service)),
      ];
      for (const queue of queues) {
        await channel.deleteQueue(queue);
        await channel.deleteQueue(names.parkingQueue(queue));
      }
      for (const delayMs of this.options.retryTiersMs) await channel.deleteQueue(names.delayQueue(delayMs));
      for (const exchange of [
        names.commandsExchange,
        names.eventsExchange,
        names.deadLetterExchange,
        names.retryExchange,
      ]) {
        await channel.deleteExchange(exchange);
      }
    } finally {
      await model.close();
    }
  }

  private async declareConsumerQueue(channel: Channel, queue: string): Promise<void> {
    const { names } = this.options;
    const parking = names.parkingQueue(queue);
    await channel.assertQueue(parking, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.bindQueue(parking, names.deadLetterExchange, queue);
    await channel.assertQueue(queue, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        // Backstop for consumers that crash on a message before they can park it themselves.
        'x-delivery-limit': this.options.maxDeliveries + 1,
        'x-dead-letter-exchange': names.deadLetterExchange,
        'x-dead-letter-routing-key': queue,
      },
    });
    await channel.bindQueue(queue, names.retryExchange, '', { 'x-match': 'all', [RETRY_QUEUE]: queue });
  }
}
