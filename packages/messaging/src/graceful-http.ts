import type { Server, ServerResponse } from 'node:http';

/**
 * How a service's HTTP listener stops: the returned function closes its port (new connections are refused), makes
 * every answer not yet sent carry `Connection: close` (so a kept-alive client sends nothing more on that connection),
 * and resolves once every request in flight has been answered and its connection closed. Call it right after creating
 * the server: it watches requests from the first one.
 */
export function gracefulHttpStop(server: Server): () => Promise<void> {
  let stopping = false;
  const unanswered = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (stopping) {
      res.setHeader('connection', 'close');
      return;
    }
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });
  return () =>
    new Promise<void>((resolve) => {
      stopping = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
      server.close(() => resolve());
      server.closeIdleConnections();
    });
}
