import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a connection still sending a request when its listener stops (headers or body half-sent) gets to finish
 * sending it; past it the connection is dropped and the client sends it again elsewhere.
 */
export const HALF_SENT_REQUEST_GRACE_MS = 1000;

/**
 * How a service's HTTP listener stops: the returned function closes its port (new connections are refused), makes
 * every answer not yet sent carry `Connection: close` (so a kept-alive client sends nothing more on that connection),
 * and resolves once every request received whole has been answered and every connection is gone. Idle connections
 * are closed at once; a request still arriving gets `halfSentGraceMs`, then its connection is dropped, so neither an
 * idle client nor a slow one holds the stop. Call it right after creating the server: it watches connections and
 * requests from the first one.
 */
export function gracefulHttpStop(
  server: Server,
  halfSentGraceMs: number = HALF_SENT_REQUEST_GRACE_MS,
): () => Promise<void> {
  let stopping = false;
  /** Every open connection, with the answers it owes. */
  const connections = new Map<Socket, Set<ServerResponse>>();
  /** Called whenever an answer is done while stopping. */
  let onAnswered = () => undefined as void;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, new Set());
    socket.once('close', () => connections.delete(socket));
  });
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (stopping) res.setHeader('connection', 'close');
    const owed = connections.get(req.socket);
    if (!owed) return;
    owed.add(res);
    res.once('close', () => {
      owed.delete(res);
      onAnswered();
    });
  });
  /** An answer is owed on it for a request received whole: the stop waits for it. */
  const owesAnswer = (owed: Set<ServerResponse>) => [...owed].some((res) => res.req.complete);
  const dropQuiet = () => {
    for (const [socket, owed] of connections) if (!owesAnswer(owed)) socket.destroy();
  };
  return () =>
    new Promise<void>((resolve) => {
      stopping = true;
      for (const owed of connections.values())
        for (const res of owed) if (!res.headersSent) res.setHeader('connection', 'close');
      server.close(() => {
        clearTimeout(grace);
        resolve();
      });
      server.closeIdleConnections();
      // Past the grace, every connection that is owed no answer goes: idle, or still sending its request.
      let graceOver = false;
      const grace = setTimeout(() => {
        graceOver = true;
        dropQuiet();
      }, halfSentGraceMs);
      onAnswered = () => {
        // A kept-alive connection whose last answer was sent before the stop has no `Connection: close` to end it.
        if (graceOver) dropQuiet();
        else server.closeIdleConnections();
      };
    });
}
