import { createServer, request, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

export interface SlowProxy {
  url: string;
  /** Every request waits this long before it is passed on (0: at once). */
  delayMs: number;
  /** Requests received and not yet answered. */
  readonly inFlight: number;
  close(): Promise<void>;
}

/** An HTTP proxy in front of the PSP that can be made slow, like a PSP under load. */
export async function startSlowProxy(targetUrl: string): Promise<SlowProxy> {
  const target = new URL(targetUrl);
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
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
