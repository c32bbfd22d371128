import amqp from 'amqplib';
import { infrastructureUrls } from './infrastructure';

/** How many ready messages `queue` (its full name, prefix included) holds now; undefined when it does not exist. */
export async function messagesWaitingIn(queue: string): Promise<number | undefined> {
  const model = await amqp.connect(infrastructureUrls().amqpUrl, { noDelay: true });
  try {
    const channel = await model.createChannel();
    // A missing queue closes the channel with an error of its own.
    channel.on('error', () => undefined);
    return (await channel.checkQueue(queue)).messageCount;
  } catch {
    return undefined;
  } finally {
    await model.close().catch(() => undefined);
  }
}
