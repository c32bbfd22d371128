import amqp from 'amqplib';
import { serviceNames } from '@gateway/contracts';
import { DEFAULT_RETRY_SCHEDULE, TopologyNames } from '@gateway/messaging';
import { infrastructureUrls } from '@gateway/testkit-core';

/** Deletes every queue and exchange the services declare under `prefix` (end-to-end test clean-up). */
export async function deleteBrokerNames(prefix: string): Promise<void> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl);
  try {
    const names = new TopologyNames(prefix);
    const queues = serviceNames.flatMap((s) => [`${prefix}${s}.commands`, `${prefix}${s}.events`]);
    const delayQueues = DEFAULT_RETRY_SCHEDULE.tiersMs.map((delayMs) => names.delayQueue(delayMs));
    for (const queue of [...queues, ...queues.map((q) => `${q}.parking`), ...delayQueues]) {
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      await channel.deleteQueue(queue).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
    for (const exchange of ['commands', 'events', 'dead-letter', 'retry']) {
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      await channel.deleteExchange(`${prefix}${exchange}`).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
  } finally {
    await model.close();
  }
}
