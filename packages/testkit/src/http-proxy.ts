import { createServer, request, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface HttpProxy {
  url: string;
  /** The next `count` requests get `status` (with Retry-After when given) instead of reaching the target. */
  failNext(count: number, status: number, retryAfterSeconds?: number): void;
  failuresServed(): number;
  /** Every request passed on waits this long first (0: at once), like a provider under load. */
  delayMs: number;
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  close(): Promise<void>;
}

/** An HTTP proxy in front of a provider (a PSP, an RPC endpoint) that can be told to answer with errors (a
 * rate-limited provider) or slowly (a provider under load). */
export async function startHttpProxy(targetUrl: string): Promise<HttpProxy> {
  const target = new URL(targetUrl);
  const pending: { status: number; retryAfterSeconds?: number }[] = [];
  let served = 0;
  let inFlight = 0;
  const proxy = {
    delayMs: 0,
    get inFlight() {
      return inFlight;
    },
  };
  const server: Server = createServer((req, res) => {
    inFlight += 1;
    res.on('close', () => (inFlight -= 1));
    const failure = pending.shift();
    if (failure) {
      served++;
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
      req.resume();
      res.writeHead(failure.status, headers).end('try again later');
      return;
    }
    setTimeout(() => {
      const upstream = request(
        {
          hostname: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }, proxy.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const controls: Omit<HttpProxy, 'delayMs' | 'inFlight'> = {
    url: `http://127.0.0.1:${port}`,
    failNext: (count, status, retryAfterSeconds) => {
      for (let i = 0; i < count; i++) pending.push({ status, retryAfterSeconds });
    },
    failuresServed: () => served,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return Object.assign(proxy, controls);
}
