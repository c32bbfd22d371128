import amqp, { type GetMessage } from 'amqplib';
import { serviceNames } from '@gateway/contracts';
import { infrastructureUrls } from './infrastructure';
import { waitFor } from './wait';

export interface ParkedMessage {
  type: string | undefined;
  messageId: string | undefined;
  reason: string;
}

function parkedMessageOf(msg: GetMessage): ParkedMessage {
  return {
    type: msg.properties.type as string | undefined,
    messageId: msg.properties.messageId as string | undefined,
    reason: String(msg.properties.headers?.['x-parked-reason'] ?? ''),
  };
}

/** Takes every message currently in a parking queue (`<prefix><service>.commands.parking`, ...). */
export async function takeParkedMessages(queue: string): Promise<ParkedMessage[]> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl);
  try {
    const channel = await model.createChannel();
    const taken: ParkedMessage[] = [];
    for (;;) {
      const msg = await channel.get(queue, { noAck: true });
      if (!msg) return taken;
      taken.push(parkedMessageOf(msg));
    }
  } finally {
    await model.close();
  }
}

/** Waits until a parking queue holds messages, and takes them. */
export function waitForParkedMessages(queue: string, what = 'the parked message'): Promise<ParkedMessage[]> {
  return waitFor(
    async () => {
      const taken = await takeParkedMessages(queue);
      return taken.length > 0 ? taken : undefined;
    },
    { what },
  );
}

/**
 * Takes every message parked under `prefix` by any service of the stack (commands and events), naming its queue; a
 * parking queue a service never declared holds nothing.
 */
export async function takeEveryParkedMessage(
  prefix: string,
): Promise<Array<ParkedMessage & { queue: string }>> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl);
  try {
    const taken: Array<ParkedMessage & { queue: string }> = [];
    for (const queue of serviceNames.flatMap((s) => [`${prefix}${s}.commands`, `${prefix}${s}.events`])) {
      const parking = `${queue}.parking`;
      // A missing queue closes its channel: one channel per queue.
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      try {
        await channel.checkQueue(parking);
      } catch {
        continue;
      }
      for (;;) {
        const msg = await channel.get(parking, { noAck: true });
        if (!msg) break;
        taken.push({ queue: parking, ...parkedMessageOf(msg) });
      }
      await channel.close().catch(() => undefined);
    }
    return taken;
  } finally {
    await model.close();
  }
}
