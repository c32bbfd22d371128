import type { ChannelModel } from 'amqplib';
import type { RabbitmqDefinitions } from '../../src/rabbitmq-definitions';

/**
 * Declares the definitions' exchanges, queues and bindings through `model`, as applying the file does: a queue
 * already there with other arguments fails with PRECONDITION_FAILED.
 */
export async function declareDefinitions(model: ChannelModel, defs: RabbitmqDefinitions): Promise<void> {
  const channel = await model.createChannel();
  try {
    for (const e of defs.exchanges)
      await channel.assertExchange(e.name, e.type, { durable: e.durable, autoDelete: e.auto_delete });
    for (const q of defs.queues)
      await channel.assertQueue(q.name, {
        durable: q.durable,
        autoDelete: q.auto_delete,
        arguments: q.arguments,
      });
    for (const b of defs.bindings)
      await channel.bindQueue(b.destination, b.source, b.routing_key, b.arguments);
  } finally {
    await channel.close().catch(() => undefined);
  }
}
