import { createServer, type Server } from 'node:http';
import { metricsRegistry } from '@gateway/observability';
import { gracefulHttpStop } from './graceful-http';

export interface MetricsListener {
  server: Server;
  /** Closes it as every listener of ours closes (gracefulHttpStop): a scraper's kept-alive connection holds nothing. */
  stop(): Promise<void>;
}

/** A tiny HTTP listener for services without an HTTP API: Prometheus `/metrics` and a `/healthz` liveness probe. */
export async function serveMetrics(
  port: number,
  host: string,
  brokerConnected: () => boolean,
): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      metricsRegistry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (req.url === '/healthz') {
      const ok = brokerConnected();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'degraded' }));
    } else {
      res.writeHead(404).end();
    }
  });
  const stop = gracefulHttpStop(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return { server, stop };
}
