import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Envelope } from '@gateway/contracts';
import { contextFromHeaders, counter, inSpan, runInContext, type Logger } from '@gateway/observability';
import type { BrokerConnection } from './connection';
import { describeFailure, safeAck, type DeliveryOutcomes } from './delivery-outcome';
import { parseEnvelope } from './envelope';
import { CommandError, InvalidMessageError } from './errors';
import { failureKind } from './failure-kind';
import { RETRY_FAILURES } from './message-headers';
import { messageAttributes, messagingTracer } from './message-spans';

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

/** A message being handled now, as a stop that runs out of time reports it. */
export interface MessageInFlight {
  queue: string;
  /** Its versioned name, e.g. `payment.create.v1`. */
  message: string;
  messageId: string;
  startedAt: number;
}

/** A queue consumed and the handlers of its messages. */
interface ConsumerRegistration {
  queue: string;
  handlers: HandlerMap;
}

const messagesFailed = counter(
  'broker_messages_failed_total',
  'Handler failures, by queue and kind (permanent: parked or answered at once; transient/unknown: redelivered)',
  ['queue', 'kind'],
);
const messagesRedelivered = counter(
  'broker_messages_redelivered_total',
  'Deliveries of a message the broker had handed out before (its consumer died, lost its connection or gave it back), by queue',
  ['queue'],
);
const commandsExpired = counter(
  'broker_commands_expired_total',
  'RPC commands not run because their caller had stopped waiting before they were delivered',
  ['queue'],
);

/**
 * The consumers of a process: each delivery runs its handler in the trace the message carries, then is answered,
 * acked, retried later, refused or parked (DeliveryOutcomes). They start again on every new connection, until the
 * process stops taking messages.
 */
export class Consumers {
  private readonly registrations: ConsumerRegistration[] = [];
  private readonly inFlight = new Map<Promise<void>, MessageInFlight>();
  /** The consumers delivering now, to cancel when the service stops. */
  private readonly consuming: Array<{ channel: Channel; consumerTag: string }> = [];
  /** The consumers' channels on the current connection, to close (with their acks) before it. */
  private readonly channels: Channel[] = [];
  /** Set once the service stops taking messages: no consumer starts again, even after a reconnect. */
  private intakeStopped = false;
  /** Consumer cancels not yet confirmed by the broker: until then, deliveries may still arrive. */
  private readonly cancelling = new Set<Promise<unknown>>();

  constructor(
    private readonly connection: BrokerConnection,
    private readonly outcomes: DeliveryOutcomes,
    private readonly options: { prefetch: number; logger: Logger },
  ) {}

  /** Consumes `queue` with `handlers`, now if connected, and again after every reconnect. */
  async add(queue: string, handlers: HandlerMap): Promise<void> {
    const registration = { queue, handlers };
    this.registrations.push(registration);
    const model = this.connection.model;
    if (model) await this.start(model, registration);
  }

  /** Starts every consumer on a new connection (part of readying it). */
  async restart(model: ChannelModel): Promise<void> {
    this.consuming.splice(0);
    this.channels.splice(0);
    for (const registration of this.registrations) await this.start(model, registration);
  }

  /**
   * Stops taking messages: every consumer is cancelled. A delivery that reaches this process before the broker
   * confirms the cancel (it was sent before the broker saw it) is handled like the others: handing it back would count
   * as a failed delivery on a quorum queue (its x-delivery-count goes up whether it is nacked or its channel closed).
   * Messages being handled go on and are acked.
   */
  async stopConsuming(): Promise<void> {
    this.intakeStopped = true;
    for (const { channel, consumerTag } of this.consuming.splice(0)) this.cancel(channel, consumerTag);
    await Promise.all(this.cancelling);
  }

  /** No consumer starts again, even after a reconnect (the connection is being dropped). */
  stopIntake(): void {
    this.intakeStopped = true;
  }

  /** Resolves once no message is being handled (after `stopConsuming`, none starts again). */
  async drain(): Promise<void> {
    // A consumer set up while the stop began is cancelled as soon as it exists: what it got meanwhile counts too.
    await Promise.all(this.cancelling);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.keys()]);
  }

  /** The messages being handled now. */
  messagesInFlight(): MessageInFlight[] {
    return [...this.inFlight.values()];
  }

  /** The consumers' channels on the current connection, handed over to be closed. */
  takeChannels(): Channel[] {
    return this.channels.splice(0);
  }

  private async start(model: ChannelModel, registration: ConsumerRegistration): Promise<void> {
    if (this.intakeStopped) return;
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    channel.on('close', () => model.close().catch(() => undefined));
    this.channels.push(channel);
    await channel.prefetch(this.options.prefetch);
    const { consumerTag } = await channel.consume(registration.queue, (msg) => {
      if (!msg) return;
      const work = this.handleDelivery(channel, registration, msg).finally(() => this.inFlight.delete(work));
      this.inFlight.set(work, {
        queue: registration.queue,
        message: String(msg.properties.type),
        messageId: String(msg.properties.messageId),
        startedAt: Date.now(),
      });
    });
    // A stop that began while this consumer was being set up has already cancelled the others.
    if (this.intakeStopped) this.cancel(channel, consumerTag);
    else this.consuming.push({ channel, consumerTag });
  }

  private cancel(channel: Channel, consumerTag: string): void {
    const cancelled = channel.cancel(consumerTag).catch(() => undefined);
    this.cancelling.add(cancelled);
    void cancelled.finally(() => this.cancelling.delete(cancelled));
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
    const { logger } = this.options;
    const { queue } = registration;
    const headers = msg.properties.headers ?? {};
    const redeliveries = Number(headers['x-delivery-count'] ?? 0);
    if (redeliveries > 0) messagesRedelivered.inc({ queue });
    const attempt = Number(headers[RETRY_FAILURES] ?? 0) + redeliveries + 1;
    let envelope: Envelope;
    try {
      envelope = parseEnvelope(msg.content);
    } catch (err) {
      await this.outcomes.refuse(channel, queue, msg, err);
      return;
    }
    const deadline = msg.properties.replyTo && envelope.deadline ? Date.parse(envelope.deadline) : undefined;
    if (deadline !== undefined && Date.now() > deadline) {
      // Its caller has answered its own client already (a timeout); running it now would be a surprise.
      logger.warn(
        { queue, message_id: msg.properties.messageId },
        'command dropped: its caller stopped waiting',
      );
      commandsExpired.inc({ queue });
      safeAck(channel, msg);
      return;
    }
    const handler = registration.handlers[envelope.name];
    if (!handler) {
      await this.outcomes.refuse(
        channel,
        queue,
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
      'messaging.destination.subscription.name': queue,
      'gateway.message.attempt': attempt,
    };
    await inSpan(
      messagingTracer,
      `process ${envelope.name}`,
      { kind: SpanKind.CONSUMER, attributes },
      (span) => this.process(channel, queue, msg, handler, context, deadline, span),
    );
  }

  /** Runs the handler, then answers, acks, retries later or parks, as its outcome says. */
  private async process(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    handler: MessageHandler,
    context: MessageContext,
    deadline: number | undefined,
    span: Span,
  ): Promise<void> {
    const started = Date.now();
    try {
      const result = await handler(context.envelope.payload as never, context);
      await this.outcomes.replyIfAsked(msg, { ok: true, result });
      safeAck(channel, msg);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: describeFailure(err) });
      // A refusal answers its caller; a dependency's unavailability is retried when no caller is waiting for it.
      if (err instanceof CommandError && (msg.properties.replyTo || failureKind(err) === 'permanent')) {
        await this.outcomes.replyIfAsked(msg, { ok: false, error: { code: err.code, message: err.message } });
        safeAck(channel, msg);
        return;
      }
      const kind = failureKind(err);
      messagesFailed.inc({ queue, kind });
      if (kind === 'permanent') {
        await this.outcomes.refuse(channel, queue, msg, err);
        return;
      }
      await this.outcomes.retryLater(channel, queue, msg, err, {
        unknownFailure: kind === 'unknown',
        attemptMs: Date.now() - started,
        deadline: deadline ?? 0,
      });
    }
  }
}
