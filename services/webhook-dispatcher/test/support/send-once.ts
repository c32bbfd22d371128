/**
 * Child-process entry: sends one delivery with the default trust store and prints the result as JSON.
 * NODE_EXTRA_CA_CERTS is only read at process start, so this is how a test proves it is honoured.
 */
import { createWebhookSender } from '../../src/clients/http-sender';

async function main(): Promise<void> {
  const url = process.argv[2];
  if (url === undefined) throw new Error('usage: send-once <url>');
  const sender = createWebhookSender({
    allowPrivateTargets: true,
    maxConnectionsPerOrigin: 1,
    userAgent: 'webhook-dispatcher-test',
    timeoutMs: 5_000,
  });
  const result = await sender.send({ url, headers: {}, body: Buffer.from('{}') });
  await sender.close();
  process.stdout.write(JSON.stringify(result));
}

void main();
