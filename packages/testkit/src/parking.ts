import amqp from 'amqplib';
import { infrastructureUrls } from './infrastructure';
import { waitFor } from './wait';

export interface ParkedMessage {
  type: string | undefined;
  messageId: string | undefined;
  reason: string;
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
      taken.push({
        type: msg.properties.type as string | undefined,
        messageId: msg.properties.messageId as string | undefined,
        reason: String(msg.properties.headers?.['x-parked-reason'] ?? ''),
      });
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
