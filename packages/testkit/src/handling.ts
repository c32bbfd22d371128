import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { brokerUrls } from '@gateway/config';
import type { MessageDefinition, Reply, ServiceName } from '@gateway/contracts';
import { createEnvelope, TopologyNames } from '@gateway/messaging';

/** RabbitMQ's direct reply-to: answers come back on the channel that published, no queue to declare. */
const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';

/**
 * Publishes an event as its producer would, but with a reply address, and resolves (with what the handler returned)
 * once the consuming service has finished handling this very delivery: a consumer answers every message that carries
 * a reply address, events included, after its handler. A test uses it before asserting that a delivery (a duplicate, a
 * redelivery) changed nothing, where no row would show that it was handled. The first answer counts, so the event must
 * reach one consuming queue in the test (or be given to one service's events queue alone, `toService`, as a broker
 * redelivers it to that queue); a refusal, or no answer within `timeoutMs`, fails.
 */
export async function publishAndAwaitHandling<P>(
  config: { AMQP_URL?: string; AMQP_URLS?: string[]; AMQP_PREFIX: string },
  definition: MessageDefinition<P>,
  payload: P,
  {
    messageId,
    timeoutMs = 10_000,
    toService,
  }: { messageId?: string; timeoutMs?: number; toService?: ServiceName } = {},
): Promise<unknown> {
  const envelope = createEnvelope(definition, payload, { messageId });
  const correlationId = randomUUID();
  const model = await amqp.connect(brokerUrls(config)[0]!);
  try {
    const channel = await model.createChannel();
    let answered: (body: string) => void = () => undefined;
    const answer = new Promise<string>((resolve) => (answered = resolve));
    // Direct reply-to wants its consumer in place before the publish that names it.
    await channel.consume(
      DIRECT_REPLY_TO,
      (msg) => {
        if (msg?.properties.correlationId === correlationId) answered(msg.content.toString('utf8'));
      },
      { noAck: true },
    );
    const names = new TopologyNames(config.AMQP_PREFIX);
    // The default exchange routes by queue name: the one service's queue, whatever it is bound to.
    channel.publish(
      toService ? '' : names.eventsExchange,
      toService ? names.eventQueue(toService) : definition.name,
      Buffer.from(JSON.stringify(envelope)),
      {
        contentType: 'application/json',
        messageId: envelope.id,
        correlationId,
        type: envelope.name,
        replyTo: DIRECT_REPLY_TO,
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer to ${definition.name} ${envelope.id} within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    const reply = JSON.parse(await Promise.race([answer, timedOut]).finally(() => clearTimeout(timer))) as
      Reply<unknown> | { ok: true; result?: undefined };
    if (!reply.ok)
      throw new Error(`${definition.name} was refused: ${reply.error.code} ${reply.error.message}`);
    return reply.result;
  } finally {
    await model.close();
  }
}

/** The queue `service`'s events wait in, under the broker prefix `prefix`. */
export function eventQueueOf(prefix: string, service: ServiceName): string {
  return new TopologyNames(prefix).eventQueue(service);
}

/**
 * Removes the binding of `definition` to `service`'s events queue, as a binding missing (or a message dropped on its
 * way) would: the broker drops what is published meanwhile for that service. Resolves the function that binds it again.
 */
export function withoutEventBinding(
  config: { AMQP_URL: string; AMQP_PREFIX: string },
  service: ServiceName,
  definition: MessageDefinition<unknown>,
): Promise<() => Promise<void>> {
  return withoutEventBindings(config, service, [definition]);
}

/** withoutEventBinding for several events at once: `service` hears none of them until bound again. */
export async function withoutEventBindings(
  config: { AMQP_URL: string; AMQP_PREFIX: string },
  service: ServiceName,
  definitions: ReadonlyArray<MessageDefinition<unknown>>,
): Promise<() => Promise<void>> {
  const names = new TopologyNames(config.AMQP_PREFIX);
  const bindings = definitions.map(
    (definition) => [names.eventQueue(service), names.eventsExchange, definition.name] as const,
  );
  const model = await amqp.connect(config.AMQP_URL);
  try {
    const channel = await model.createChannel();
    for (const binding of bindings) await channel.unbindQueue(...binding);
  } finally {
    await model.close();
  }
  return async () => {
    const again = await amqp.connect(config.AMQP_URL);
    try {
      const channel = await again.createChannel();
      for (const binding of bindings) await channel.bindQueue(...binding);
    } finally {
      await again.close();
    }
  };
}
