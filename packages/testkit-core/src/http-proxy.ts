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
  /**
   * Those of them with this method and a path `path` matches (e.g. a PSP's `PUT /cob/{txid}`) that `delayMs` holds back
   * `heldForMs` longer at least.
   */
  inFlightTo(method: string, path: RegExp, heldForMs?: number): number;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a provider (a PSP, an RPC endpoint) that can be told to answer with errors (a
 * rate-limited provider) or slowly (a provider under load). The target may be a function, read at each request, for a
 * provider whose address is known only once the proxy's own is handed out.
 */
export async function startHttpProxy(targetUrl: string | (() => string)): Promise<HttpProxy> {
  const targetNow = () => new URL(typeof targetUrl === 'string' ? targetUrl : targetUrl());
  const pending: { status: number; retryAfterSeconds?: number }[] = [];
  let served = 0;
  const inFlight = new Set<{ method: string; path: string; heldUntil: number }>();
  const proxy = {
    delayMs: 0,
    get inFlight() {
      return inFlight.size;
    },
    inFlightTo: (method: string, path: RegExp, heldForMs = 0) =>
      [...inFlight].filter(
        (r) => r.method === method && path.test(r.path) && r.heldUntil - Date.now() >= heldForMs,
      ).length,
  };
  const server: Server = createServer((req, res) => {
    const received = { method: req.method ?? '', path: req.url ?? '', heldUntil: Date.now() + proxy.delayMs };
    inFlight.add(received);
    res.on('close', () => inFlight.delete(received));
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
      const target = targetNow();
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
  const controls: Omit<HttpProxy, 'delayMs' | 'inFlight' | 'inFlightTo'> = {
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
