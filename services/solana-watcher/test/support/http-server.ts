import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';

/** A retry policy of one attempt, for a test that counts calls or times a failure. */
export const ONE_ATTEMPT = {
  maxAttempts: 1,
  baseDelayMs: 10,
  maxDelayMs: 10,
  timeoutMs: 2_000,
  rateLimitedMaxMs: 0,
};

/** `use` given the URL of an HTTP server answering with `handler` on a free local port; closed after, connections cut. */
export async function whileServing(
  handler: RequestListener,
  use: (url: string, server: Server) => Promise<void>,
): Promise<void> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    await use(`http://127.0.0.1:${port}`, server);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
