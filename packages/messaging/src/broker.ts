import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import {
  context as activeContext,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
} from '@opentelemetry/api';
import {
  findMessage,
  replySchema,
  serviceNames,
  type CommandDefinition,
  type Envelope,
  type MessageDefinition,
  type Reply,
  type ReplyError,
  type ServiceName,
} from '@gateway/contracts';
import {
  contextFromHeaders,
  counter,
  currentTraceHeaders,
  gauge,
  inSpan,
  runInContext,
  type Logger,
  type TraceHeaders,
} from '@gateway/observability';
import { createEnvelope, parseEnvelope, type MessageOrigin } from './envelope';
import { BrokerUnavailableError, CommandError, InvalidMessageError, RpcTimeoutError } from './errors';
import { failureKind, permanentFailureReply } from './failure-kind';
import { messageAttributes, messagingTracer } from './message-spans';
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs, type RetrySchedule } from './retry-schedule';
import { callFailure, callRequest, unavailable, unwrapReply, type CallOptions } from './rpc-call';
import { TopologyNames } from './topology';

export interface BrokerOptions {
  url: string;
  /** Name prefix for exchanges and queues (isolates test runs). */
  prefix?: string;
  /** Shown in the RabbitMQ management UI and `rabbitmqctl list_connections`. */
  connectionName: string;
  logger: Logger;
  /** Unacked messages per consumer channel. */
  prefetch?: number;
  /**
   * A message failing for an unknown reason (likely a bug) is parked after this many attempts; a transient failure is
   * retried for `retry.retryForMs` instead. Also the broker's own backstop (crash loops): `x-delivery-limit`.
   */
  maxDeliveries?: number;
  /** When failed messages are tried again, and for how long (defaults: DEFAULT_RETRY_SCHEDULE). */
  retry?: Partial<RetrySchedule>;
  /** Cap of the reconnect backoff. */
  maxReconnectDelayMs?: number;
}

export interface MessageContext {
  envelope: Envelope;
  logger: Logger;
  /**
   * 1 on the first delivery; one more for every failed attempt retried and every redelivery after a consumer died. A
   * re-driven message starts again at 1.
   */
  attempt: number;
}

export type MessageHandler = (payload: never, context: MessageContext) => Promise<unknown>;

/** Handlers by versioned message name. A command handler's return value is the reply's result. */
export type HandlerMap = Record<string, MessageHandler>;

interface ConsumerRegistration {
  queue: string;
  handlers: HandlerMap;
  kind: 'commands' | 'events';
}

/** A parking queue and how many messages it holds. */
export interface ParkedQueue {
  /** The queue its messages came from (and return to when re-driven), e.g. `payment.events`. */
  queue: string;
  parked: number;
}

/**
 * Headers the backbone keeps on a message across retries. Header names without `x-` are routable by a headers
 * exchange (RabbitMQ ignores `x-` headers when matching).
 */
const RETRY_QUEUE = 'retry-queue';
const RETRY_FAILURES = 'x-retry-failures';
const FIRST_FAILED_AT = 'x-first-failed-at';
const LAST_FAILURE = 'x-last-failure';
const PARKED_HEADERS = ['x-parked-reason', 'x-parked-at', 'x-parked-from'];

/** What an RPC whose command failed transiently, with no time left to retry, is answered: the caller may retry. */
const SERVICE_UNAVAILABLE_REPLY: ReplyError = {
  code: 'SERVICE_UNAVAILABLE',
  message: 'Serviço temporariamente indisponível. Tente novamente.',
};

/** A message being handled now, as a stop that runs out of time reports it. */
export interface MessageInFlight {
  queue: string;
  /** Its versioned name, e.g. `payment.create.v1`. */
  message: string;
  messageId: string;
  startedAt: number;
}

interface PendingRequest {
  /** With the reply, or undefined when none came in time. */
  resolve: (reply: Reply<unknown> | undefined) => void;
  timer: NodeJS.Timeout;
}

const messagesFailed = counter(
  'broker_messages_failed_total',
  'Handler failures, by queue and kind (permanent: parked or answered at once; transient/unknown: redelivered)',
  ['queue', 'kind'],
);
const messagesParked = counter('broker_messages_parked_total', 'Messages moved to a parking queue', [
  'queue',
]);
const messagesRetried = counter(
  'broker_messages_retried_total',
  'Failed messages sent to a delay queue to be tried again, by queue and delay',
  ['queue', 'delay_ms'],
);
const messagesRedriven = counter(
  'broker_messages_redriven_total',
  'Parked messages moved back to their queue by an operator',
  ['queue'],
);
const messagesPublished = counter(
  'broker_messages_published_total',
  'Messages this process published, by kind (confirmed: outbox and direct publishes; rpc_request; rpc_reply; copy: a retry or parking copy)',
  ['kind'],
);
const commandsExpired = counter(
  'broker_commands_expired_total',
  'RPC commands not run because their caller had stopped waiting before they were delivered',
  ['queue'],
);
const parkedNow = gauge('broker_parked_messages', 'Messages waiting in a parking queue, by source queue', [
  'queue',
]);
const retryBacklog = gauge(
  'broker_retry_backlog_messages',
  'Failed messages waiting in a retry delay queue to be tried again, by delay queue (shared by every service)',
  ['queue'],
);

/**
 * The one gateway to RabbitMQ: topology, confirmed publishing, consumers with parking, request/reply, and a connection
 * that heals itself. While disconnected, publishes fail fast (callers keep them in their outbox) and consumers resume
 * by themselves once it is back.
 */
export class Broker {
  readonly names: TopologyNames;
  private model?: ChannelModel;
  private publishChannel?: ConfirmChannel;
  private replyQueue?: string;
  private readonly consumers: ConsumerRegistration[] = [];
  private readonly eventBindings = new Map<ServiceName, string[]>();
  private readonly commandQueues = new Set<ServiceName>();
  private readonly pending = new Map<string, PendingRequest>();
  private readonly inFlight = new Map<Promise<void>, MessageInFlight>();
  /** The consumers delivering now, to cancel when the service stops. */
  private readonly consuming: Array<{ channel: Channel; consumerTag: string }> = [];
  /** Set once the service stops taking messages: no consumer starts again, even after a reconnect. */
  private intakeStopped = false;
  private readonly connectedWaiters: Array<() => void> = [];
  private closing = false;
  private reconnectAttempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly prefetch: number;
  private readonly maxDeliveries: number;
  private readonly retrySchedule: RetrySchedule;

  private constructor(private readonly options: BrokerOptions) {
    this.names = new TopologyNames(options.prefix ?? '');
    this.prefetch = options.prefetch ?? 16;
    this.maxDeliveries = options.maxDeliveries ?? 5;
    this.retrySchedule = { ...DEFAULT_RETRY_SCHEDULE, ...options.retry };
  }

  /** Connects (retrying with backoff until it succeeds or `close` is called). */
  static async connect(options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(options);
    broker.scheduleConnect(0);
    await broker.whenConnected();
    return broker;
  }

  get connected(): boolean {
    return this.publishChannel !== undefined;
  }

  whenConnected(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => this.connectedWaiters.push(resolve));
  }

  /** Declares (idempotently, now and after every reconnect) the commands queue of a service. */
  async declareCommandQueue(service: ServiceName): Promise<void> {
    this.commandQueues.add(service);
    if (this.publishChannel) await this.declareAll(this.publishChannel);
  }

  /** Declares a service's events queue bound to the given routing patterns (e.g. `payment.*.v1`). */
  async declareEventQueue(service: ServiceName, patterns: string[]): Promise<void> {
    this.eventBindings.set(service, patterns);
    if (this.publishChannel) await this.declareAll(this.publishChannel);
  }

  async consumeCommands(service: ServiceName, handlers: HandlerMap): Promise<void> {
    await this.declareCommandQueue(service);
    await this.addConsumer({ queue: this.names.commandQueue(service), handlers, kind: 'commands' });
  }

  async consumeEvents(service: ServiceName, patterns: string[], handlers: HandlerMap): Promise<void> {
    await this.declareEventQueue(service, patterns);
    await this.addConsumer({ queue: this.names.eventQueue(service), handlers, kind: 'events' });
  }

  /**
   * Publishes an envelope with a publisher confirm, in a PRODUCER span that continues the trace of `trace` (the
   * context stored with an outbox row; none: a new trace) and that the message carries. Used by the outbox relay.
   */
  async publishEnvelope(envelope: Envelope, trace: TraceHeaders): Promise<void> {
    await this.publishInTrace(envelope, contextFromHeaders(trace));
  }

  private async publishInTrace(envelope: Envelope, parent: Context): Promise<void> {
    const route = this.routeByName(envelope.name);
    const body = Buffer.from(JSON.stringify(envelope));
    await inSpan(
      messagingTracer,
      `publish ${envelope.name}`,
      { kind: SpanKind.PRODUCER, attributes: messageAttributes('send', envelope, route, body.length) },
      () => this.publishConfirmed(envelope, route, body),
      parent,
    );
  }

  private async publishConfirmed(
    envelope: Envelope,
    { exchange, routingKey }: { exchange: string; routingKey: string },
    body: Buffer,
  ): Promise<void> {
    const channel = this.publishChannel;
    if (!channel) throw new BrokerUnavailableError();
    messagesPublished.inc({ kind: 'confirmed' });
    await new Promise<void>((resolve, reject) => {
      try {
        channel.publish(
          exchange,
          routingKey,
          body,
          {
            persistent: true,
            contentType: 'application/json',
            messageId: envelope.id,
            correlationId: envelope.id,
            type: envelope.name,
            timestamp: Math.floor(Date.now() / 1000),
            headers: currentTraceHeaders(),
          },
          (err) =>
            err ? reject(new BrokerUnavailableError(`publish not confirmed: ${String(err)}`)) : resolve(),
        );
      } catch (err) {
        reject(new BrokerUnavailableError(String(err)));
      }
    });
  }

  /** Validates and publishes one message directly (confirmed). Prefer the outbox for anything tied to a state change. */
  async publish<P>(
    definition: MessageDefinition<P>,
    payload: P,
    origin: MessageOrigin = {},
  ): Promise<Envelope<P>> {
    const envelope = createEnvelope(definition, payload, origin);
    await this.publishInTrace(envelope, activeContext.active());
    return envelope;
  }

  /**
   * Calls another service: sends a command, waits for its reply until the earlier of `timeoutMs` and the deadline of
   * the message being handled, and returns the result. Every failure is a CommandError with a public code: the
   * callee's declared refusals as they are, SERVICE_UNAVAILABLE when no answer came in time (the caller may retry
   * with the same `messageId`), INTERNAL_ERROR for anything else.
   */
  async call<P, R>(definition: CommandDefinition<P, R>, payload: P, options: CallOptions): Promise<R> {
    const request = callRequest(options);
    if (!request) throw unavailable(definition);
    let reply: Reply<R>;
    try {
      reply = await this.request(definition, payload, request);
    } catch (err) {
      throw callFailure(definition, err);
    }
    return unwrapReply(definition, reply);
  }

  /**
   * Sends a command and waits for its raw reply (`call` is what services use). Replies are at-most-once: a lost one surfaces as RpcTimeoutError, and
   * callers retry with the same `messageId` so the handler's inbox returns the first result.
   */
  async request<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    options: MessageOrigin & { timeoutMs: number },
  ): Promise<Reply<R>> {
    const replyTo = this.replyQueue;
    if (!replyTo || !this.publishChannel) throw new BrokerUnavailableError();
    const deadline = options.deadline ?? Date.now() + options.timeoutMs;
    const envelope = createEnvelope(definition, payload, { ...options, deadline });
    const route = this.routeByName(envelope.name);
    const body = Buffer.from(JSON.stringify(envelope));
    // One span from the request to its reply: the callee's CONSUMER span is its child.
    return inSpan(
      messagingTracer,
      `call ${envelope.name}`,
      { kind: SpanKind.CLIENT, attributes: messageAttributes('send', envelope, route, body.length) },
      async (span) => {
        const reply = await this.sendAndAwaitReply(definition, envelope, {
          route,
          body,
          replyTo,
          deadline,
          timeoutMs: options.timeoutMs,
        });
        if (!reply.ok) span.setAttribute('gateway.reply.error_code', reply.error.code);
        return reply;
      },
    );
  }

  private async sendAndAwaitReply<P, R>(
    definition: CommandDefinition<P, R>,
    envelope: Envelope,
    sending: {
      route: { exchange: string; routingKey: string };
      body: Buffer;
      replyTo: string;
      deadline: number;
      timeoutMs: number;
    },
  ): Promise<Reply<R>> {
    const { route, body, replyTo, deadline } = sending;
    const correlation = `${envelope.id}:${randomUUID()}`;
    const reply = new Promise<Reply<unknown> | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlation);
        resolve(undefined);
      }, deadline - Date.now());
      this.pending.set(correlation, { resolve, timer });
    });
    try {
      const published = this.publishRequest(envelope, route, body, correlation, replyTo);
      // A connection that closes while the publish waits for 'drain' never drains: the reply's timeout still ends it.
      published.catch(() => undefined);
      await Promise.race([published, reply]);
    } catch (err) {
      const entry = this.pending.get(correlation);
      if (entry) clearTimeout(entry.timer);
      this.pending.delete(correlation);
      throw err;
    }
    const answer = await reply;
    if (!answer) throw new RpcTimeoutError(definition.name, sending.timeoutMs);
    if (answer.ok) {
      const checked = definition.resultSchema.validate(answer.result, { convert: false });
      if (checked.error)
        throw new InvalidMessageError(`reply to ${definition.name}: ${checked.error.message}`);
    }
    return answer as Reply<R>;
  }

  /** How many consumers a service's commands queue has now (readiness: is anyone serving it?). */
  async commandConsumers(service: ServiceName): Promise<number> {
    const model = this.model;
    if (!model) throw new BrokerUnavailableError();
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      return (await channel.checkQueue(this.names.commandQueue(service))).consumerCount;
    } catch {
      return 0;
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  /**
   * The parking queues of `services` (all by default) under this prefix, with how many messages each holds; also
   * sets the `broker_parked_messages` gauge. A queue never declared is left out.
   */
  async listParked(services: readonly ServiceName[] = serviceNames): Promise<ParkedQueue[]> {
    const model = this.model;
    if (!model) throw new BrokerUnavailableError();
    const found: ParkedQueue[] = [];
    for (const queue of this.names.consumerQueues(services)) {
      const channel = await model.createChannel();
      // A missing queue closes the channel: one channel per queue.
      channel.on('error', () => undefined);
      try {
        const { messageCount } = await channel.checkQueue(this.names.parkingQueue(queue));
        parkedNow.set({ queue }, messageCount);
        found.push({ queue: this.withoutPrefix(queue), parked: messageCount });
      } catch {
        // Not declared under this prefix.
      } finally {
        await channel.close().catch(() => undefined);
      }
    }
    return found;
  }

  /** Sets `broker_retry_backlog_messages`: how many failed messages each delay queue holds now. */
  async measureRetryBacklog(): Promise<void> {
    const model = this.model;
    if (!model) throw new BrokerUnavailableError();
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      for (const delayMs of this.retrySchedule.tiersMs) {
        const queue = this.names.delayQueue(delayMs);
        retryBacklog.set({ queue }, (await channel.checkQueue(queue)).messageCount);
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  /**
   * Moves the messages parked now (of one queue, named as `listParked` names it, or of all) back to their queue, with
   * a fresh retry budget; returns how many each queue got back. Consumers deduplicate by message id, so a message
   * that had its effect before it was parked has no second one. An RPC command whose caller stopped waiting is not
   * run again. Messages parked again while this runs stay parked.
   */
  async redriveParked(queue?: string): Promise<ParkedQueue[]> {
    const model = this.model;
    if (!model) throw new BrokerUnavailableError();
    const queues = this.names
      .consumerQueues(serviceNames)
      .filter((name) => queue === undefined || this.withoutPrefix(name) === queue);
    const moved: ParkedQueue[] = [];
    for (const name of queues) {
      const count = await this.redriveQueue(model, name);
      if (count !== undefined) moved.push({ queue: this.withoutPrefix(name), parked: count });
    }
    return moved;
  }

  /**
   * Stops taking messages: every consumer is cancelled, and a delivery that reaches this process afterwards (sent
   * before the broker saw the cancel) goes back to its queue unstarted. Messages being handled go on and are acked.
   */
  async stopConsuming(): Promise<void> {
    this.intakeStopped = true;
    await Promise.all(
      this.consuming
        .splice(0)
        .map(({ channel, consumerTag }) => channel.cancel(consumerTag).catch(() => undefined)),
    );
  }

  /** Resolves once no message is being handled (after `stopConsuming`, none starts again). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.keys()]);
  }

  /** The messages being handled now. */
  messagesInFlight(): MessageInFlight[] {
    return [...this.inFlight.values()];
  }

  /** Stops consuming, waits for in-flight handlers, and closes the connection. */
  async close(): Promise<void> {
    await this.stopConsuming();
    await this.drain();
    await this.disconnect();
  }

  /**
   * Closes the connection at once, without waiting for the messages being handled: the broker hands them to another
   * consumer (as after a crash; the inbox deduplicates). For a stop that ran out of time.
   */
  async disconnect(): Promise<void> {
    this.intakeStopped = true;
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const { timer, resolve } of this.pending.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.pending.clear();
    const model = this.model;
    this.model = undefined;
    this.publishChannel = undefined;
    await model?.close().catch(() => undefined);
  }

  /** Drops the TCP socket without a protocol close, as a network failure would (tests and chaos drills). */
  dropConnectionForTesting(): void {
    const stream = (this.model?.connection as unknown as { stream?: Socket } | undefined)?.stream;
    stream?.destroy(new Error('connection dropped (simulated network failure)'));
  }

  /** Deletes every queue and exchange this broker declared (test clean-up). */
  async deleteDeclaredTopology(): Promise<void> {
    const model = await amqp.connect(this.options.url, { noDelay: true });
    try {
      const channel = await model.createChannel();
      const queues = [
        ...[...this.commandQueues].map((s) => this.names.commandQueue(s)),
        ...[...this.eventBindings.keys()].map((s) => this.names.eventQueue(s)),
      ];
      for (const queue of queues) {
        await channel.deleteQueue(queue);
        await channel.deleteQueue(this.names.parkingQueue(queue));
      }
      for (const delayMs of this.retrySchedule.tiersMs)
        await channel.deleteQueue(this.names.delayQueue(delayMs));
      for (const exchange of [
        this.names.commandsExchange,
        this.names.eventsExchange,
        this.names.deadLetterExchange,
        this.names.retryExchange,
      ]) {
        await channel.deleteExchange(exchange);
      }
    } finally {
      await model.close();
    }
  }

  private withoutPrefix(queue: string): string {
    return queue.slice(this.names.prefix.length);
  }

  /** Moves what `queue`'s parking queue holds now back to `queue`, confirmed one by one; undefined if none exists. */
  private async redriveQueue(model: ChannelModel, queue: string): Promise<number | undefined> {
    const parking = this.names.parkingQueue(queue);
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined);
    try {
      let count: number;
      try {
        count = (await channel.checkQueue(parking)).messageCount;
      } catch {
        return undefined;
      }
      let moved = 0;
      while (moved < count) {
        const msg = await channel.get(parking, { noAck: false });
        if (!msg) break;
        const headers = withoutBrokerHeaders(msg.properties.headers ?? {});
        for (const name of [RETRY_QUEUE, RETRY_FAILURES, FIRST_FAILED_AT, LAST_FAILURE, ...PARKED_HEADERS])
          delete headers[name];
        await new Promise<void>((resolve, reject) =>
          channel.publish(
            '',
            queue,
            msg.content,
            {
              ...msg.properties,
              persistent: true,
              headers: { ...headers, 'x-redriven-at': new Date().toISOString() },
            },
            (e) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve()),
          ),
        );
        channel.ack(msg);
        moved += 1;
      }
      this.options.logger.info({ queue, moved }, 'parked messages re-driven');
      messagesRedriven.inc({ queue }, moved);
      parkedNow.set({ queue }, (await channel.checkQueue(parking)).messageCount);
      return moved;
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  private route(definition: { name: string; kind?: string; handledBy?: ServiceName }): {
    exchange: string;
    routingKey: string;
  } {
    const command = definition.kind === 'command' || definition.handledBy !== undefined;
    if (command) return { exchange: this.names.commandsExchange, routingKey: definition.handledBy as string };
    return { exchange: this.names.eventsExchange, routingKey: definition.name };
  }

  private async publishRequest(
    envelope: Envelope,
    { exchange, routingKey }: { exchange: string; routingKey: string },
    body: Buffer,
    correlation: string,
    replyTo: string,
  ): Promise<void> {
    const channel = this.publishChannel;
    if (!channel) throw new BrokerUnavailableError();
    messagesPublished.inc({ kind: 'rpc_request' });
    const ok = channel.publish(exchange, routingKey, body, {
      persistent: false,
      contentType: 'application/json',
      messageId: envelope.id,
      correlationId: correlation,
      type: envelope.name,
      replyTo,
      headers: currentTraceHeaders(),
    });
    if (!ok) await new Promise((resolve) => channel.once('drain', resolve));
  }

  /** Commands go to the handling service's queue, events to the topic exchange under their name. */
  private routeByName(name: string): { exchange: string; routingKey: string } {
    const definition = findMessage(name);
    return this.route(definition ?? { name });
  }

  private scheduleConnect(delayMs: number): void {
    if (this.closing) return;
    this.reconnectTimer = setTimeout(() => {
      this.connectOnce().catch((err: unknown) => {
        this.reconnectAttempt += 1;
        const cap = this.options.maxReconnectDelayMs ?? 5000;
        const backoff = Math.min(cap, 100 * 2 ** this.reconnectAttempt);
        const delay = backoff / 2 + Math.random() * (backoff / 2);
        this.options.logger.warn(
          { err: String(err), delayMs: Math.round(delay) },
          'broker connect failed, retrying',
        );
        this.scheduleConnect(delay);
      });
    }, delayMs);
  }

  private async connectOnce(): Promise<void> {
    const url = new URL(this.options.url);
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', '10');
    const model = await amqp.connect(url.toString(), {
      noDelay: true,
      clientProperties: { connection_name: this.options.connectionName },
    });
    try {
      model.on('error', (err: unknown) =>
        this.options.logger.warn({ err: String(err) }, 'broker connection error'),
      );
      model.on('close', () => this.onDisconnected(model));
      const publishChannel = await model.createConfirmChannel();
      publishChannel.on('error', () => undefined);
      // A channel closed by the server (e.g. a protocol error) means our state is unknown: start over cleanly.
      publishChannel.on('close', () => model.close().catch(() => undefined));
      await this.declareAll(publishChannel);
      const reply = await publishChannel.assertQueue('', {
        exclusive: true,
        autoDelete: true,
        durable: false,
      });
      await publishChannel.consume(reply.queue, (msg) => this.onReply(msg), { noAck: true });
      this.consuming.splice(0);
      for (const registration of this.consumers) await this.startConsumer(model, registration);
      this.model = model;
      this.replyQueue = reply.queue;
      this.publishChannel = publishChannel;
    } catch (err) {
      await model.close().catch(() => undefined);
      throw err;
    }
    this.reconnectAttempt = 0;
    this.options.logger.info({ connection: this.options.connectionName }, 'broker connected');
    for (const resolve of this.connectedWaiters.splice(0)) resolve();
  }

  private onDisconnected(model: ChannelModel): void {
    if (this.model !== model && this.model !== undefined) return;
    this.model = undefined;
    this.publishChannel = undefined;
    this.replyQueue = undefined;
    if (this.closing) return;
    this.options.logger.warn('broker connection lost, reconnecting');
    this.scheduleConnect(100);
  }

  private async declareAll(channel: Channel): Promise<void> {
    const { names } = this;
    await channel.assertExchange(names.commandsExchange, 'direct', { durable: true });
    await channel.assertExchange(names.eventsExchange, 'topic', { durable: true });
    await channel.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
    await channel.assertExchange(names.retryExchange, 'headers', { durable: true });
    for (const delayMs of this.retrySchedule.tiersMs) {
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
    for (const service of this.commandQueues) {
      const queue = names.commandQueue(service);
      await this.declareConsumerQueue(channel, queue);
      await channel.bindQueue(queue, names.commandsExchange, service);
    }
    for (const [service, patterns] of this.eventBindings) {
      const queue = names.eventQueue(service);
      await this.declareConsumerQueue(channel, queue);
      for (const pattern of patterns) await channel.bindQueue(queue, names.eventsExchange, pattern);
    }
  }

  private async declareConsumerQueue(channel: Channel, queue: string): Promise<void> {
    const parking = this.names.parkingQueue(queue);
    await channel.assertQueue(parking, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.bindQueue(parking, this.names.deadLetterExchange, queue);
    await channel.assertQueue(queue, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        // Backstop for consumers that crash on a message before they can park it themselves.
        'x-delivery-limit': this.maxDeliveries + 1,
        'x-dead-letter-exchange': this.names.deadLetterExchange,
        'x-dead-letter-routing-key': queue,
      },
    });
    await channel.bindQueue(queue, this.names.retryExchange, '', { 'x-match': 'all', [RETRY_QUEUE]: queue });
  }

  private async addConsumer(registration: ConsumerRegistration): Promise<void> {
    this.consumers.push(registration);
    if (this.model) await this.startConsumer(this.model, registration);
  }

  private async startConsumer(model: ChannelModel, registration: ConsumerRegistration): Promise<void> {
    if (this.intakeStopped) return;
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    channel.on('close', () => model.close().catch(() => undefined));
    await channel.prefetch(this.prefetch);
    const { consumerTag } = await channel.consume(registration.queue, (msg) => {
      if (!msg) return;
      if (this.intakeStopped) {
        safeNack(channel, msg);
        return;
      }
      const work = this.handleDelivery(channel, registration, msg).finally(() => this.inFlight.delete(work));
      this.inFlight.set(work, {
        queue: registration.queue,
        message: String(msg.properties.type),
        messageId: String(msg.properties.messageId),
        startedAt: Date.now(),
      });
    });
    // A stop that began while this consumer was being set up has already cancelled the others.
    if (this.intakeStopped) await channel.cancel(consumerTag).catch(() => undefined);
    else this.consuming.push({ channel, consumerTag });
  }

  /** Everything about a delivery, its log lines included, belongs to the trace the message carries. */
  private handleDelivery(
    channel: Channel,
    registration: ConsumerRegistration,
    msg: ConsumeMessage,
  ): Promise<void> {
    return runInContext(contextFromHeaders(msg.properties.headers), () =>
      this.deliver(channel, registration, msg),
    );
  }

  private async deliver(
    channel: Channel,
    registration: ConsumerRegistration,
    msg: ConsumeMessage,
  ): Promise<void> {
    const logger = this.options.logger;
    const headers = msg.properties.headers ?? {};
    const attempt = Number(headers[RETRY_FAILURES] ?? 0) + Number(headers['x-delivery-count'] ?? 0) + 1;
    let envelope: Envelope;
    try {
      envelope = parseEnvelope(msg.content);
    } catch (err) {
      await this.refuse(channel, registration.queue, msg, err);
      return;
    }
    const deadline = msg.properties.replyTo && envelope.deadline ? Date.parse(envelope.deadline) : undefined;
    if (deadline !== undefined && Date.now() > deadline) {
      // Its caller has answered its own client already (a timeout); running it now would be a surprise.
      logger.warn(
        { queue: registration.queue, message_id: msg.properties.messageId },
        'command dropped: its caller stopped waiting',
      );
      commandsExpired.inc({ queue: registration.queue });
      safeAck(channel, msg);
      return;
    }
    const handler = registration.handlers[envelope.name];
    if (!handler) {
      await this.refuse(
        channel,
        registration.queue,
        msg,
        new InvalidMessageError(`no handler for ${envelope.name}`),
        { code: 'INTERNAL_ERROR', message: 'Erro interno do servidor.' },
        true,
      );
      return;
    }
    const context: MessageContext = {
      envelope,
      attempt,
      logger: logger.child({
        message_id: envelope.id,
        message: envelope.name,
        correlation_id: envelope.correlation_id,
      }),
    };
    const attributes = {
      ...messageAttributes(
        'process',
        envelope,
        { exchange: msg.fields.exchange, routingKey: msg.fields.routingKey },
        msg.content.length,
      ),
      'messaging.destination.subscription.name': registration.queue,
      'gateway.message.attempt': attempt,
    };
    await inSpan(
      messagingTracer,
      `process ${envelope.name}`,
      { kind: SpanKind.CONSUMER, attributes },
      (span) => this.process(channel, registration, msg, handler, context, deadline, span),
    );
  }

  /** Runs the handler, then answers, acks, retries later or parks, as its outcome says. */
  private async process(
    channel: Channel,
    registration: ConsumerRegistration,
    msg: ConsumeMessage,
    handler: MessageHandler,
    context: MessageContext,
    deadline: number | undefined,
    span: Span,
  ): Promise<void> {
    const started = Date.now();
    try {
      const result = await handler(context.envelope.payload as never, context);
      await this.replyIfAsked(msg, { ok: true, result });
      safeAck(channel, msg);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: describe(err) });
      // A refusal answers its caller; a dependency's unavailability is retried when no caller is waiting for it.
      if (err instanceof CommandError && (msg.properties.replyTo || failureKind(err) === 'permanent')) {
        await this.replyIfAsked(msg, { ok: false, error: { code: err.code, message: err.message } });
        safeAck(channel, msg);
        return;
      }
      const kind = failureKind(err);
      messagesFailed.inc({ queue: registration.queue, kind });
      if (kind === 'permanent') {
        await this.refuse(channel, registration.queue, msg, err);
        return;
      }
      await this.retryLater(channel, registration.queue, msg, err, {
        unknownFailure: kind === 'unknown',
        attemptMs: Date.now() - started,
        deadline: deadline ?? 0,
      });
    }
  }

  /**
   * A failure that may pass: the message goes to a delay queue and comes back to `queue` after a growing delay, while
   * the messages behind it flow on. An event (or a command without a caller) is retried until `retry.retryForMs`
   * after its first failure, then parked; an RPC command only while its caller still waits, then it is answered
   * SERVICE_UNAVAILABLE. An unknown failure (likely a bug) gets `maxDeliveries` attempts.
   */
  private async retryLater(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    err: unknown,
    { unknownFailure, attemptMs, deadline }: { unknownFailure: boolean; attemptMs: number; deadline: number },
  ): Promise<void> {
    const headers = msg.properties.headers ?? {};
    const failures = Number(headers[RETRY_FAILURES] ?? 0) + 1;
    const now = Date.now();
    const firstFailedAt = Number(headers[FIRST_FAILED_AT] ?? now);
    const delayMs = retryDelayMs(this.retrySchedule, failures);
    const outOfAttempts = unknownFailure && failures >= this.maxDeliveries;
    if (msg.properties.replyTo) {
      if (outOfAttempts) {
        await this.refuse(channel, queue, msg, err, permanentFailureReply(err), false);
        return;
      }
      if (now + delayMs + attemptMs >= deadline) {
        await this.refuse(channel, queue, msg, err, SERVICE_UNAVAILABLE_REPLY, false);
        return;
      }
    } else if (outOfAttempts) {
      await this.park(channel, queue, msg, `after ${failures} attempts: ${describe(err)}`);
      return;
    } else if (now - firstFailedAt >= this.retrySchedule.retryForMs) {
      const minutes = Math.round((now - firstFailedAt) / 60_000);
      await this.park(
        channel,
        queue,
        msg,
        `still failing ${minutes} min after the first failure: ${describe(err)}`,
      );
      return;
    }
    this.options.logger.warn(
      { queue, message_id: msg.properties.messageId, err: describe(err), failures, delayMs },
      'handler failed, will be retried',
    );
    try {
      await this.republish('', this.names.delayQueue(delayMs), msg, {
        ...withoutBrokerHeaders(headers),
        [RETRY_QUEUE]: queue,
        [RETRY_FAILURES]: String(failures),
        [FIRST_FAILED_AT]: String(firstFailedAt),
        [LAST_FAILURE]: describe(err).slice(0, 2000),
      });
      messagesRetried.inc({ queue, delay_ms: String(delayMs) });
      safeAck(channel, msg);
    } catch {
      // No delay queue now (the broker is going away): back to the queue after a pause, never a hot loop.
      await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, 1000)));
      safeNack(channel, msg);
    }
  }

  /**
   * Gives up on a message for good. A command is answered with an error at once (its caller is not left to time out
   * and retry) and acked: the caller holds the refusal, so there is nothing left to replay. An event, or a message
   * that exhausted its deliveries, is parked with its reason. Either way it is logged once, without a stack trace.
   */
  private async refuse(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    err: unknown,
    reply: ReplyError = permanentFailureReply(err),
    park = !msg.properties.replyTo,
  ): Promise<void> {
    await this.replyIfAsked(msg, { ok: false, error: reply });
    if (park) {
      await this.park(channel, queue, msg, describe(err));
      return;
    }
    this.options.logger.warn(
      { queue, message_id: msg.properties.messageId, reason: describe(err), code: reply.code },
      'command refused',
    );
    safeAck(channel, msg);
  }

  /** Moves a message to its queue's parking queue with the reason, then acks it so the queue moves on. */
  private async park(channel: Channel, queue: string, msg: ConsumeMessage, reason: string): Promise<void> {
    this.options.logger.error({ queue, message_id: msg.properties.messageId, reason }, 'message parked');
    try {
      await this.republish(this.names.deadLetterExchange, queue, msg, {
        ...msg.properties.headers,
        'x-parked-reason': reason.slice(0, 2000),
        'x-parked-at': new Date().toISOString(),
        'x-parked-from': queue,
      });
      messagesParked.inc({ queue });
      safeAck(channel, msg);
    } catch {
      // Could not park it now: leave it to be redelivered (the broker's delivery limit is the last resort).
      safeNack(channel, msg);
    }
  }

  /** Publishes a copy of a received message (same body and properties, new headers), confirmed. */
  private async republish(
    exchange: string,
    routingKey: string,
    msg: ConsumeMessage,
    headers: Record<string, unknown>,
  ): Promise<void> {
    const publisher = this.publishChannel;
    if (!publisher) throw new BrokerUnavailableError();
    messagesPublished.inc({ kind: 'copy' });
    await new Promise<void>((resolve, reject) =>
      publisher.publish(
        exchange,
        routingKey,
        msg.content,
        { ...msg.properties, persistent: true, headers },
        (e) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve()),
      ),
    );
  }

  private async replyIfAsked(msg: ConsumeMessage, reply: Reply<unknown>): Promise<void> {
    const { replyTo, correlationId } = msg.properties;
    if (!replyTo || !this.publishChannel) return;
    messagesPublished.inc({ kind: 'rpc_reply' });
    try {
      this.publishChannel.publish('', replyTo, Buffer.from(JSON.stringify(reply)), {
        correlationId,
        contentType: 'application/json',
      });
    } catch (err) {
      // The caller times out and retries idempotently.
      this.options.logger.warn({ err: String(err) }, 'reply not sent');
    }
  }

  private onReply(msg: ConsumeMessage | null): void {
    if (!msg) return;
    const entry = this.pending.get(msg.properties.correlationId as string);
    if (!entry) return;
    this.pending.delete(msg.properties.correlationId as string);
    clearTimeout(entry.timer);
    let parsed: unknown;
    try {
      parsed = JSON.parse(msg.content.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const checked = replySchema.validate(parsed);
    entry.resolve(
      checked.error
        ? { ok: false, error: { code: 'INTERNAL_ERROR', message: 'malformed reply' } }
        : (checked.value as Reply<unknown>),
    );
  }
}

/** One line for a failure: its name and message, never a stack trace. */
function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function safeAck(channel: Channel, msg: ConsumeMessage): void {
  try {
    channel.ack(msg);
  } catch {
    // Channel already closed: the message will be redelivered and deduplicated by the inbox.
  }
}

/**
 * A message's headers without those the broker sets on delivery and dead-lettering: a copy starts a new delivery
 * count (the `x-delivery-limit` backstop counts crashes of one copy, not retries), and its death history stays short.
 */
function withoutBrokerHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => name !== 'x-delivery-count' && !/^x-(first-|last-)?death/.test(name),
    ),
  );
}

function safeNack(channel: Channel, msg: ConsumeMessage): void {
  try {
    channel.nack(msg, false, true);
  } catch {
    // Channel already closed: the broker requeues it anyway.
  }
}
