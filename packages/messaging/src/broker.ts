import type { CommandDefinition, Envelope, MessageDefinition, Reply, ServiceName } from '@gateway/contracts';
import type { TraceHeaders } from '@gateway/observability';
import { BrokerConnection, type ConnectionOptions } from './connection';
import { Consumers, type HandlerTable, type MessageInFlight } from './consumer';
import { DeliveryOutcomes } from './delivery-outcome';
import type { MessageOrigin } from './envelope';
import { ServiceHandlers } from './handlers';
import { Parking, type ParkedQueue } from './parking';
import { Publisher } from './publisher';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from './retry-schedule';
import type { CallOptions } from './rpc-call';
import { RpcClient } from './rpc-client';
import { BrokerTopology, TopologyNames } from './topology';

export type { MessageContext, MessageInFlight } from './consumer';
export type { CommandHandler, EventHandler, EventHandling, ServiceHandlers } from './handlers';
export type { ParkedQueue } from './parking';

export interface BrokerOptions extends ConnectionOptions {
  /** Name prefix for exchanges and queues (isolates test runs). */
  prefix?: string;
  /** Unacked messages per consumer channel. */
  prefetch?: number;
  /**
   * A message failing for an unknown reason (likely a bug) is parked after this many attempts; a transient failure is
   * retried for `retry.retryForMs` instead. Also the broker's own backstop (crash loops): `x-delivery-limit`.
   */
  maxDeliveries?: number;
  /** When failed messages are tried again, and for how long (defaults: DEFAULT_RETRY_SCHEDULE). */
  retry?: Partial<RetrySchedule>;
  /**
   * true (every service of the stack: the service runtime sets it): declares the whole topology when it connects and
   * after every reconnect (every service's queues and every event binding of `eventSubscriptions`), so no event is
   * dropped for want of a consumer that has not started yet. false (tests' stand-ins and tools): only the queues
   * consumed here, bound to the events their handlers name.
   */
  wholeTopology?: boolean;
  /**
   * true (every service): `handlers(service).consume()` throws unless the events it registers bound handlers for are
   * exactly the service's `eventSubscriptions`, so the declaration the stack binds from cannot drift from the
   * handlers. false (tests' stand-ins): a service binds whatever events it handles.
   */
  exactSubscriptions?: boolean;
}

/**
 * The one gateway to RabbitMQ: topology, confirmed publishing, consumers with parking, request/reply, and a connection
 * that heals itself. While disconnected, publishes fail fast (callers keep them in their outbox) and consumers resume
 * by themselves once it is back. Each part is a module of its own, put together here: connection.ts, topology.ts,
 * publisher.ts, rpc-client.ts, consumer.ts (with delivery-outcome.ts) and parking.ts.
 */
export class Broker {
  readonly names: TopologyNames;
  private readonly connection: BrokerConnection;
  private readonly topology: BrokerTopology;
  private readonly publisher: Publisher;
  private readonly rpc: RpcClient;
  private readonly consumers: Consumers;
  private readonly parking: Parking;

  private constructor(private readonly options: BrokerOptions) {
    const { logger } = options;
    const retrySchedule = { ...DEFAULT_RETRY_SCHEDULE, ...options.retry };
    const maxDeliveries = options.maxDeliveries ?? 5;
    const names = new TopologyNames(options.prefix ?? '');
    this.names = names;
    // Every new connection is readied before it is used: topology, reply queue, then the consumers.
    this.connection = new BrokerConnection(options, async (model, publishChannel) => {
      await this.topology.declareAll(publishChannel);
      await this.rpc.openReplyQueue(publishChannel);
      await this.consumers.restart(model);
    });
    this.topology = new BrokerTopology(this.connection, {
      names,
      retryTiersMs: retrySchedule.tiersMs,
      maxDeliveries,
      wholeTopology: options.wholeTopology === true,
    });
    this.publisher = new Publisher(this.connection, names);
    this.rpc = new RpcClient(this.connection, names);
    const outcomes = new DeliveryOutcomes(this.connection, { names, retrySchedule, maxDeliveries, logger });
    this.consumers = new Consumers(this.connection, outcomes, { prefetch: options.prefetch ?? 16, logger });
    this.parking = new Parking(this.connection, { names, retryTiersMs: retrySchedule.tiersMs, logger });
  }

  /** Connects (retrying with backoff until it succeeds or `close` is called). */
  static async connect(options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(options);
    await broker.connection.open();
    return broker;
  }

  /** The address of the broker node the connection is on now (one of `urls`), undefined while there is none. */
  get nodeUrl(): string | undefined {
    return this.connection.url;
  }

  get connected(): boolean {
    return this.connection.connected;
  }

  /** Declares (idempotently, now and after every reconnect) the commands queue of a service. */
  declareCommandQueue(service: ServiceName): Promise<void> {
    return this.topology.declareCommandQueue(service);
  }

  /** Declares (idempotently, now and after every reconnect) the events queue of a service, bound to nothing more. */
  declareEventQueue(service: ServiceName): Promise<void> {
    return this.topology.declareEventQueue(service, []);
  }

  /**
   * The messages `service` handles, registered one by one with their definitions (`handle(definition, handler)`),
   * then consumed together (`consume()`): its queues, and the events its queue is bound to, follow from them (and,
   * with `wholeTopology`, from its `eventSubscriptions`, declared when this broker connected).
   */
  handlers(service: ServiceName): ServiceHandlers {
    return new ServiceHandlers(service, this.options.exactSubscriptions === true, {
      consumeCommands: async (owner: ServiceName, handlers: HandlerTable) => {
        await this.declareCommandQueue(owner);
        await this.consumers.add(this.names.commandQueue(owner), handlers);
      },
      consumeEvents: async (owner: ServiceName, bindings: readonly string[], handlers: HandlerTable) => {
        await this.topology.declareEventQueue(owner, bindings);
        await this.consumers.add(this.names.eventQueue(owner), handlers);
      },
    });
  }

  /** See Publisher.publishEnvelope: confirmed, continuing the trace stored with an outbox row. */
  publishEnvelope(envelope: Envelope, trace: TraceHeaders): Promise<void> {
    return this.publisher.publishEnvelope(envelope, trace);
  }

  /** Validates and publishes one message directly (confirmed). Prefer the outbox for anything tied to a state change. */
  publish<P>(definition: MessageDefinition<P>, payload: P, origin?: MessageOrigin): Promise<Envelope<P>> {
    return this.publisher.publish(definition, payload, origin);
  }

  /** Calls another service and returns the result, or throws a CommandError with a public code (RpcClient.call). */
  call<P, R>(definition: CommandDefinition<P, R>, payload: P, options: CallOptions): Promise<R> {
    return this.rpc.call(definition, payload, options);
  }

  /** Sends a command and waits for its raw reply (`call` is what services use; RpcClient.request). */
  request<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    options: MessageOrigin & { timeoutMs: number },
  ): Promise<Reply<R>> {
    return this.rpc.request(definition, payload, options);
  }

  /** How many consumers a service's commands queue has now (readiness: is anyone serving it?). */
  async commandConsumers(service: ServiceName): Promise<number> {
    // Every process declared every command queue as it connected (ADR 0039): checked on a channel kept open, one per
    // service, so a queue gone (which closes its channel) or a call stuck on one queue says nothing of the others.
    try {
      return await this.connection.inspect(`readiness:${service}`, async (channel) => {
        return (await channel.checkQueue(this.names.commandQueue(service))).consumerCount;
      });
    } catch {
      return 0;
    }
  }

  /** The parking queues of `services` (all by default), with how many messages each holds (Parking.listParked). */
  listParked(services?: readonly ServiceName[]): Promise<ParkedQueue[]> {
    return this.parking.listParked(services);
  }

  /** Sets `broker_parked_messages` for the queues `service` consumes (Parking.measureParked). */
  measureParked(service: ServiceName): Promise<void> {
    return this.parking.measureParked(service);
  }

  /** Sets `broker_retry_backlog_messages`: how many failed messages each delay queue holds now. */
  measureRetryBacklog(): Promise<void> {
    return this.parking.measureRetryBacklog();
  }

  /** Moves the messages parked now (of one queue, or of all) back to their queue (Parking.redriveParked). */
  redriveParked(queue?: string): Promise<ParkedQueue[]> {
    return this.parking.redriveParked(queue);
  }

  /** Stops taking messages: every consumer is cancelled; messages being handled go on (Consumers.stopConsuming). */
  stopConsuming(): Promise<void> {
    return this.consumers.stopConsuming();
  }

  /** Resolves once no message is being handled (after `stopConsuming`, none starts again). */
  drain(): Promise<void> {
    return this.consumers.drain();
  }

  /** The messages being handled now. */
  messagesInFlight(): MessageInFlight[] {
    return this.consumers.messagesInFlight();
  }

  /** The messages delivered since `stopConsuming` began (Consumers.messagesTakenWhileStopping). */
  messagesTakenWhileStopping(): MessageInFlight[] {
    return this.consumers.messagesTakenWhileStopping();
  }

  /** Stops consuming, waits for in-flight handlers, and closes the connection. */
  async close(): Promise<void> {
    await this.stopConsuming();
    await this.drain();
    await this.connection.closeChannels(this.consumers.takeChannels());
    await this.disconnect();
  }

  /**
   * Closes the connection at once, without waiting for the messages being handled: the broker hands them to another
   * consumer (as after a crash; the inbox deduplicates). For a stop that ran out of time.
   */
  async disconnect(): Promise<void> {
    this.consumers.stopIntake();
    this.rpc.abandonPending();
    await this.connection.disconnect();
  }

  /** Drops the TCP socket without a protocol close, as a network failure would (tests and chaos drills). */
  dropConnectionForTesting(): void {
    this.connection.dropForTesting();
  }

  /**
   * Deletes every queue and exchange this broker declared (test clean-up), through `url` when given (a broker that
   * reached the node through a proxy, since closed), else its own node's.
   */
  deleteDeclaredTopology(url?: string): Promise<void> {
    return this.topology.deleteDeclared(url ?? this.connection.url ?? this.options.urls[0]!);
  }
}
