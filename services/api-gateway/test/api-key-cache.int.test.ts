import { createServer, type AddressInfo } from 'node:net';
import Redis from 'ioredis';
import type { Logger } from '@gateway/observability';
import { ApiKeyCache } from '../src/clients/api-key-cache';

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the API key cache out of reach', () => {
  it('dropping a lookup after a roll or a revoke never fails the change: it is logged, the lookup lives out its time', async () => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    redis.on('error', () => undefined);
    const lines: string[] = [];
    const logger = { warn: (_fields: unknown, msg: string) => void lines.push(msg) } as unknown as Logger;
    const cache = new ApiKeyCache(redis, 'test:', logger);

    await expect(cache.drop('abcdefgh')).resolves.toBeUndefined();
    await expect(cache.read('abcdefgh')).resolves.toBeUndefined();

    expect(lines).toEqual(['api key cache drop failed', 'api key cache read failed']);
    redis.disconnect();
  });
});
