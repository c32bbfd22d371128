import { randomUUID } from 'node:crypto';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { SpanKind } from '@opentelemetry/api';
import { replySchema, type CommandDefinition, type Envelope, type Reply } from '@gateway/contracts';
import { currentTraceHeaders, inSpan } from '@gateway/observability';
import type { BrokerConnection } from './connection';
import { createEnvelope, type MessageOrigin } from './envelope';
import { BrokerUnavailableError, InvalidMessageError, RpcTimeoutError } from './errors';
import { messageAttributes, messagingTracer } from './message-spans';
import { messagesPublished } from './publisher';
import { callFailure, callRequest, unavailable, unwrapReply, type CallOptions } from './rpc-call';
import { messageRoute, type MessageRoute, type TopologyNames } from './topology';

interface PendingRequest {
  /** With the reply, or undefined when none came in time. */
  resolve: (reply: Reply<unknown> | undefined) => void;
  timer: NodeJS.Timeout;
  /** When the caller stopped waiting (epoch ms). */
  deadline: number;
}

/**
 * Request/reply: an exclusive reply queue per connection, a correlation id per request, and a wait that ends at the
 * request's deadline.
 */
export class RpcClient {
  private replyQueue?: string;
  private readonly pending = new Map<string, PendingRequest>();

  constructor(
    private readonly connection: BrokerConnection,
    private readonly names: TopologyNames,
  ) {}

  /** Opens the reply queue of a new connection (part of readying it). */
  async openReplyQueue(channel: ConfirmChannel): Promise<void> {
    const reply = await channel.assertQueue('', {
      exclusive: true,
      autoDelete: true,
      durable: false,
    });
    await channel.consume(reply.queue, (msg) => this.onReply(msg), { noAck: true });
    this.replyQueue = reply.queue;
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
   * Sends a command and waits for its raw reply (`call` is what services use). Replies are at-most-once: a lost one
   * surfaces as RpcTimeoutError, and callers retry with the same `messageId` so the handler's inbox returns the first
   * result.
   */
  async request<P, R>(
    definition: CommandDefinition<P, R>,
    payload: P,
    options: MessageOrigin & { timeoutMs: number },
  ): Promise<Reply<R>> {
    const replyTo = this.replyQueue;
    if (!replyTo || !this.connection.publishChannel) throw new BrokerUnavailableError();
    const deadline = options.deadline ?? Date.now() + options.timeoutMs;
    const envelope = createEnvelope(definition, payload, { ...options, deadline });
    const route = messageRoute(this.names, envelope.name);
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

  /** Ends every wait at once, as if no reply came (the connection is being closed). */
  abandonPending(): void {
    for (const { timer, resolve } of this.pending.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.pending.clear();
  }

  private async sendAndAwaitReply<P, R>(
    definition: CommandDefinition<P, R>,
    envelope: Envelope,
    sending: {
      route: MessageRoute;
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
      this.pending.set(correlation, { resolve, timer, deadline });
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
      // A tolerant reader, like every message's (envelope.ts): a newer release's handler may answer more fields.
      const checked = definition.resultSchema.validate(answer.result, { convert: false, allowUnknown: true });
      if (checked.error)
        throw new InvalidMessageError(`reply to ${definition.name}: ${checked.error.message}`);
    }
    return answer as Reply<R>;
  }

  private async publishRequest(
    envelope: Envelope,
    { exchange, routingKey }: MessageRoute,
    body: Buffer,
    correlation: string,
    replyTo: string,
  ): Promise<void> {
    const channel = this.connection.publishChannel;
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

  private onReply(msg: ConsumeMessage | null): void {
    if (!msg) return;
    const entry = this.pending.get(msg.properties.correlationId as string);
    if (!entry) return;
    this.pending.delete(msg.properties.correlationId as string);
    clearTimeout(entry.timer);
    // A busy event loop may run a late reply before the due timer: past the deadline it is no answer in time, as the
    // timer would have said (the callee gave up at the same deadline, so its reply says nothing about the work).
    if (Date.now() >= entry.deadline) return entry.resolve(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(msg.content.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const checked = replySchema.validate(parsed, { allowUnknown: true });
    entry.resolve(
      checked.error
        ? { ok: false, error: { code: 'INTERNAL_ERROR', message: 'malformed reply' } }
        : (checked.value as Reply<unknown>),
    );
  }
}
