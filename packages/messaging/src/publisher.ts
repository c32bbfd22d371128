import { context as activeContext, SpanKind, type Context } from '@opentelemetry/api';
import type { Envelope, MessageDefinition } from '@gateway/contracts';
import {
  contextFromHeaders,
  counter,
  currentTraceHeaders,
  inSpan,
  type TraceHeaders,
} from '@gateway/observability';
import type { BrokerConnection } from './connection';
import { createEnvelope, type MessageOrigin } from './envelope';
import { BrokerUnavailableError } from './errors';
import { messageAttributes, messagingTracer } from './message-spans';
import { messageRoute, type MessageRoute, type TopologyNames } from './topology';

export const messagesPublished = counter(
  'broker_messages_published_total',
  'Messages this process published, by kind (confirmed: outbox and direct publishes; rpc_request; rpc_reply; copy: a retry or parking copy)',
  ['kind'],
);

/** Publishing with publisher confirms, each message in a PRODUCER span whose trace it carries. */
export class Publisher {
  constructor(
    private readonly connection: BrokerConnection,
    private readonly names: TopologyNames,
  ) {}

  /**
   * Publishes an envelope with a publisher confirm, in a PRODUCER span that continues the trace of `trace` (the
   * context stored with an outbox row; none: a new trace) and that the message carries. Used by the outbox relay.
   */
  async publishEnvelope(envelope: Envelope, trace: TraceHeaders): Promise<void> {
    await this.publishInTrace(envelope, contextFromHeaders(trace));
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

  private async publishInTrace(envelope: Envelope, parent: Context): Promise<void> {
    const route = messageRoute(this.names, envelope.name);
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
    { exchange, routingKey }: MessageRoute,
    body: Buffer,
  ): Promise<void> {
    const channel = this.connection.publishChannel;
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
}
