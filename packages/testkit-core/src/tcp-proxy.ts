import { createServer, connect, type Server, type Socket } from 'node:net';

export type TcpProxyMode = 'forward' | 'paused' | 'refusing';

export interface TcpProxy {
  /** `url` with its host and port replaced by the proxy's (e.g. a database URL keeping user and path). */
  urlFor(url: string): string;
  port: number;
  mode(): TcpProxyMode;
  /** Forwards again; a refusing proxy listens again on the same port. */
  forward(): Promise<void>;
  /** A dependency that hangs: connections are accepted (and kept) but nothing passes either way. */
  pause(): void;
  /** A dependency that is down: open connections are cut and new ones refused (ECONNREFUSED). */
  refuse(): Promise<void>;
  /** Cuts every open connection (as a restart would) and keeps forwarding new ones. */
  drop(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

/**
 * A TCP proxy in front of PostgreSQL, Redis or RabbitMQ that a test can pause, cut or turn into a refusing port,
 * so one component sees its dependency fail while the shared server keeps serving everyone else.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: TcpProxyMode = 'forward';

  const cut = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream.destroy();
    pairs.delete(pair);
  };
  const flow = (pair: Pair) => {
    pair.client.resume();
    pair.upstream.resume();
  };
  const hold = (pair: Pair) => {
    pair.client.pause();
    pair.upstream.pause();
  };

  const onConnection = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('error', () => cut(pair));
    upstream.on('error', () => cut(pair));
    client.on('close', () => cut(pair));
    upstream.on('close', () => cut(pair));
    client.pipe(upstream);
    upstream.pipe(client);
    if (mode === 'paused') hold(pair);
  };

  let server: Server = createServer(onConnection);
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));

  await listen(0);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    urlFor(url) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    mode: () => mode,
    async forward() {
      if (mode === 'refusing') {
        server = createServer(onConnection);
        await listen(port);
      }
      mode = 'forward';
      pairs.forEach(flow);
    },
    pause() {
      mode = 'paused';
      pairs.forEach(hold);
    },
    async refuse() {
      if (mode !== 'refusing') {
        mode = 'refusing';
        const closed = stopListening();
        pairs.forEach(cut);
        await closed;
      }
    },
    drop() {
      pairs.forEach(cut);
    },
    async close() {
      pairs.forEach(cut);
      if (mode !== 'refusing') await stopListening();
      mode = 'refusing';
    },
  };
}
