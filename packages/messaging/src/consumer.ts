import { setTimeout as delay } from 'node:timers/promises';
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Envelope } from '@gateway/contracts';
import { contextFromHeaders, counter, inSpan, runInContext, type Logger } from '@gateway/observability';
import type { BrokerConnection } from './connection';
import { describeFailure, safeAck, type DeliveryOutcomes } from './delivery-outcome';
import { parseEnvelope } from './envelope';
import { CommandError, NewerMessageError, UnknownMessageError } from './errors';
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

/**
 * What a queue's consumer runs, by versioned message name; each handler was typed by its message's definition where it
 * was registered (ServiceHandlers.handle). A command handler's return value is the reply's result.
 */
export type HandlerTable = ReadonlyMap<
  string,
  (payload: unknown, context: MessageContext) => Promise<unknown>
>;

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
  handlers: HandlerTable;
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
 * Whether a message this release cannot read belongs to a newer one (docs/adr/0038-message-compatibility.md): a newer
 * version of a known type, or a type this release has never heard of arriving on a queue whose handlers do not claim
 * it (a newer release bound it there). A type the queue's own handlers name but no contract knows is this release's
 * own bad data, and is refused.
 */
function forNewerRelease(err: unknown, registration: ConsumerRegistration): NewerMessageError | undefined {
  if (err instanceof NewerMessageError) return err;
  if (err instanceof UnknownMessageError && !registration.handlers.has(err.messageName))
    return new NewerMessageError(
      `${err.messageName} is a message type this release does not know`,
      err.deadline,
    );
  return undefined;
}

/** How long a stop watches for deliveries that come after the consumers' cancel-ok, once nothing is being handled. */
const LATE_DELIVERY_WAIT_MS = 100;

interface ActiveConsumer {
  channel: Channel;
  consumerTag: string;
  onMessage: (msg: ConsumeMessage | null) => void;
}

/** The part of amqplib's channel (not in its types) that routes deliveries to consumers by tag. */
interface ConsumerRegistry {
  registerConsumer(consumerTag: string, onMessage: (msg: ConsumeMessage | null) => void): void;
}

/**
 * The consumers of a process: each delivery runs its handler in the trace the message carries, then is answered,
 * acked, retried later, refused or parked (DeliveryOutcomes). They start again on every new connection, until the
 * process stops taking messages.
 */
export class Consumers {
  private readonly registrations: ConsumerRegistration[] = [];
  private readonly inFlight = new Map<Promise<void>, MessageInFlight>();
  /** The consumers delivering now, to cancel when the service stops. */
  private readonly consuming: ActiveConsumer[] = [];
  /** The consumers' channels on the current connection, to close (with their acks) before it. */
  private readonly channels: Channel[] = [];
  /** Set once the service stops taking messages: no consumer starts again, even after a reconnect. */
  private intakeStopped = false;
  /** Consumer cancels not yet confirmed by the broker: until then, deliveries may still arrive. */
  private readonly cancelling = new Set<Promise<unknown>>();
  /** A consumer was cancelled since the last drain watched for late deliveries (a stop drains twice). */
  private lateDeliveriesPossible = false;
  /** The messages delivered once the stop began (before the broker confirmed the cancel, or after): the stop owes them. */
  private readonly takenWhileStopping: MessageInFlight[] = [];

  constructor(
    private readonly connection: BrokerConnection,
    private readonly outcomes: DeliveryOutcomes,
    private readonly options: { prefetch: number; logger: Logger },
  ) {}

  /** Consumes `queue` with `handlers`, now if connected, and again after every reconnect. */
  async add(queue: string, handlers: HandlerTable): Promise<void> {
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
   * confirms the cancel (it was sent before the broker saw it), or from a quorum queue just after, is handled like the
   * others: handing it back would count as a failed delivery on a quorum queue (its x-delivery-count goes up whether it
   * is nacked or its channel closed). Messages being handled go on and are acked.
   */
  async stopConsuming(): Promise<void> {
    this.intakeStopped = true;
    for (const consumer of this.consuming.splice(0)) this.cancel(consumer);
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
    do {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.keys()]);
      // What a quorum queue still delivers after the cancel-ok was already on its way: it comes within moments.
      if (this.lateDeliveriesPossible) {
        await delay(LATE_DELIVERY_WAIT_MS);
        // One came: more may follow it.
        this.lateDeliveriesPossible = this.inFlight.size > 0;
      }
    } while (this.inFlight.size > 0);
  }

  /** The messages being handled now. */
  messagesInFlight(): MessageInFlight[] {
    return [...this.inFlight.values()];
  }

  /** The messages delivered since the process stopped taking messages (each handled like the others). */
  messagesTakenWhileStopping(): MessageInFlight[] {
    return [...this.takenWhileStopping];
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
    const onMessage = (msg: ConsumeMessage | null): void => {
      if (!msg) {
        // The broker cancelled this consumer (its queue deleted, or moved away in a cluster): nothing would come any
        // more, so the connection starts over and subscribes again (closing the channel closes it, see above).
        this.options.logger.warn(
          { queue: registration.queue },
          'consumer cancelled by the broker, resubscribing',
        );
        void channel.close().catch(() => undefined);
        return;
      }
      const work = this.handleDelivery(channel, registration, msg).finally(() => this.inFlight.delete(work));
      const delivered = {
        queue: registration.queue,
        message: String(msg.properties.type),
        messageId: String(msg.properties.messageId),
        startedAt: Date.now(),
      };
      this.inFlight.set(work, delivered);
      if (this.intakeStopped) this.takenWhileStopping.push(delivered);
    };
    const { consumerTag } = await channel.consume(registration.queue, onMessage);
    // A stop that began while this consumer was being set up has already cancelled the others.
    if (this.intakeStopped) this.cancel({ channel, consumerTag, onMessage });
    else this.consuming.push({ channel, consumerTag, onMessage });
  }

  private cancel(consumer: ActiveConsumer): void {
    const { channel, consumerTag, onMessage } = consumer;
    const cancelled = channel
      .cancel(consumerTag)
      // A quorum queue may still deliver to a consumer after its cancel-ok (rabbitmq-server#3729). amqplib forgets the
      // consumer at cancel-ok and closes the channel on such a delivery ("Unknown consumer"), which hands back every
      // unacked message of the channel, those being handled included: the late ones are taken like the others.
      .then(() => (channel as unknown as ConsumerRegistry).registerConsumer(consumerTag, onMessage))
      .catch(() => undefined);
    this.lateDeliveriesPossible = true;
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
    if (redeliveries > 0) {
      messagesRedelivered.inc({ queue });
      // Which message came back, for following it to the process that held it before: a consumer died, lost its
      // connection or handed it back, which an operator wants to see.
      this.options.logger.warn(
        { queue, message_id: msg.properties.messageId, delivery_count: redeliveries },
        'message delivered again',
      );
    }
    const attempt = Number(headers[RETRY_FAILURES] ?? 0) + redeliveries + 1;
    let envelope: Envelope;
    try {
      envelope = parseEnvelope(msg.content);
    } catch (err) {
      const newer = forNewerRelease(err, registration);
      if (newer)
        await this.leaveToNewerRelease(
          channel,
          queue,
          msg,
          newer,
          msg.properties.replyTo ? newer.deadline : undefined,
        );
      else await this.outcomes.refuse(channel, queue, msg, err);
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
    const handler = registration.handlers.get(envelope.name);
    if (!handler) {
      // A message this release knows but this service does not handle: a newer release's replicas, bound to the same
      // queue during a rolling upgrade, handle it.
      await this.leaveToNewerRelease(
        channel,
        queue,
        msg,
        new NewerMessageError(`no handler for ${envelope.name} in this release`),
        deadline,
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

  /**
   * A message for a newer release (docs/adr/0038-message-compatibility.md): retried later, when one of that release's
   * replicas may take it; a caller waiting for a command gets SERVICE_UNAVAILABLE once it would wait no longer.
   */
  private async leaveToNewerRelease(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    err: NewerMessageError,
    deadline: number | undefined,
  ): Promise<void> {
    messagesFailed.inc({ queue, kind: 'transient' });
    await this.outcomes.retryLater(channel, queue, msg, err, {
      unknownFailure: false,
      attemptMs: 0,
      deadline: deadline ?? 0,
    });
  }

  /** Runs the handler, then answers, acks, retries later or parks, as its outcome says. */
  private async process(
    channel: Channel,
    queue: string,
    msg: ConsumeMessage,
    handler: (payload: unknown, context: MessageContext) => Promise<unknown>,
    context: MessageContext,
    deadline: number | undefined,
    span: Span,
  ): Promise<void> {
    const started = Date.now();
    try {
      const result = await handler(context.envelope.payload, context);
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
