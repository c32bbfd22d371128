import type { Attributes } from '@opentelemetry/api';
import type { Envelope } from '@gateway/contracts';
import { tracerOf } from '@gateway/observability';

/** PRODUCER, CONSUMER and CLIENT (RPC) spans around the backbone's messages. */
export const messagingTracer = tracerOf('@gateway/messaging');

/**
 * Messaging semantic-convention attributes of one message on RabbitMQ: where it goes and its ids, never its payload.
 * `operation` is `send` for a publish, `process` for a delivery handled.
 */
export function messageAttributes(
  operation: 'send' | 'process',
  envelope: Pick<Envelope, 'id' | 'correlation_id'>,
  route: { exchange: string; routingKey: string },
  bodySize: number,
): Attributes {
  return {
    'messaging.system': 'rabbitmq',
    'messaging.operation.type': operation,
    'messaging.operation.name': operation === 'send' ? 'publish' : 'process',
    'messaging.destination.name': route.exchange,
    'messaging.rabbitmq.destination.routing_key': route.routingKey,
    'messaging.message.id': envelope.id,
    'messaging.message.conversation_id': envelope.correlation_id,
    'messaging.message.body.size': bodySize,
  };
}
