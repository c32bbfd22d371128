import type { RequestListener } from 'node:http';
import { createServer } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { metricsRegistry } from '@gateway/observability';
import { SolanaRpc } from '../src/clients/solana-rpc';
import { createRpcConnection } from '../src/clients/web3-connection';
import { ONE_ATTEMPT, whileServing } from './support/http-server';
import { startLocalnet, type Localnet } from './support/localnet';

/** `solana_watcher_rpc_request_duration_seconds` counts by "method outcome", as this process's registry has them. */
async function rpcCalls(): Promise<Map<string, number>> {
  const histogram = await metricsRegistry
    .getSingleMetric('solana_watcher_rpc_request_duration_seconds')
    ?.get();
  return new Map(
    (histogram?.values ?? [])
      .filter(
        (value) =>
          (value as { metricName?: string }).metricName ===
          'solana_watcher_rpc_request_duration_seconds_count',
      )
      .map((value) => [`${value.labels.method} ${value.labels.outcome}`, value.value]),
  );
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('Solana RPC calls are timed by method and outcome', () => {
  let localnet: Localnet;

  beforeAll(async () => {
    localnet = await startLocalnet({ port: 0 });
  });

  afterAll(() => localnet?.close());

  test('an answer is ok, an error the node answers is rpc_error, a node that does not answer is unreachable', async () => {
    const before = await rpcCalls();
    await new SolanaRpc(localnet.url, ONE_ATTEMPT).getSlot();
    await expect(
      new SolanaRpc(localnet.url, ONE_ATTEMPT).getSignaturesForAddress(localnet.receivingWallet.toBase58(), {
        limit: 100_000,
      }),
    ).rejects.toThrow();
    await expect(new SolanaRpc(await closedPortUrl(), ONE_ATTEMPT).getSlot()).rejects.toThrow();

    const after = await rpcCalls();
    const added = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect({
      ok: added('getSlot ok'),
      rpcError: added('getSignaturesForAddress rpc_error'),
      unreachable: added('getSlot unreachable'),
    }).toEqual({ ok: 1, rpcError: 1, unreachable: 1 });
    // Labelled by method only: no address or signature ever becomes a label value.
    expect([...after.keys()].every((key) => !key.includes(localnet.receivingWallet.toBase58()))).toBe(true);
  });

  test('a node that sends its headers and then stalls the body is given up on after the timeout too', async () => {
    const stalled: RequestListener = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"jsonrpc":"2.0","result":');
    };
    await whileServing(stalled, async (url) => {
      const started = Date.now();
      const call = new SolanaRpc(url, { ...ONE_ATTEMPT, timeoutMs: 300 }).getSlot();
      await expect(call).rejects.toThrow(/no answer from the Solana node to getSlot/);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });

  test('a compressed answer is read, and a redirect to the node is followed with the call', async () => {
    // Node's HTTP server in front of the localnet, as a provider's proxy: it redirects, then compresses.
    const front: RequestListener = (request, response) => {
      if (request.url !== '/rpc') {
        response.writeHead(308, { location: '/rpc' }).end();
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void fetch(localnet.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        })
          .then((answer) => answer.arrayBuffer())
          .then((answer) => {
            const asked = String(request.headers['accept-encoding']);
            const coding = asked.includes('br') ? 'br' : 'gzip';
            const body =
              coding === 'br' ? brotliCompressSync(Buffer.from(answer)) : gzipSync(Buffer.from(answer));
            response
              .writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding })
              .end(body);
          });
      });
    };
    await whileServing(front, async (url) => {
      const direct = await new SolanaRpc(localnet.url, ONE_ATTEMPT).getSlot();
      const slot = await new SolanaRpc(`${url}/old`, ONE_ATTEMPT).getSlot();
      expect(slot).toBeGreaterThanOrEqual(direct);
    });
  });

  test('a node that takes the request and never answers is given up on after the timeout, as unreachable', async () => {
    // Takes each request and never answers it.
    await whileServing(
      () => undefined,
      async (url, server) => {
        let connections = 0;
        server.on('connection', () => (connections += 1));
        const before = await rpcCalls();
        const started = Date.now();
        const call = new SolanaRpc(url, { ...ONE_ATTEMPT, timeoutMs: 300 }).getSlot();
        await expect(call).rejects.toThrow(/no answer from the Solana node to getSlot/);
        const waited = Date.now() - started;
        expect(waited).toBeGreaterThanOrEqual(290);
        expect(waited).toBeLessThan(10_000);
        expect(connections).toBe(1);
        const after = await rpcCalls();
        expect((after.get('getSlot unreachable') ?? 0) - (before.get('getSlot unreachable') ?? 0)).toBe(1);
      },
    );
  });

  test("web3.js's calls (refunds) go through the same client: paced, retried, timed", async () => {
    const before = await rpcCalls();
    const connection = createRpcConnection(new SolanaRpc(localnet.url, ONE_ATTEMPT));
    const lamports = await connection.getBalance(localnet.receivingWallet);
    expect(lamports).toBe(await new SolanaRpc(localnet.url).getBalance(localnet.receivingWallet.toBase58()));
    await expect(
      createRpcConnection(new SolanaRpc(await closedPortUrl(), ONE_ATTEMPT)).getSlot(),
    ).rejects.toThrow(/no answer from the Solana node to getSlot/);
    const after = await rpcCalls();
    const added = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect({ ok: added('getBalance ok'), unreachable: added('getSlot unreachable') }).toEqual({
      ok: 2,
      unreachable: 1,
    });
  });
});
