import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import { type AddressInfo } from 'node:net';

/** What a local endpoint does with a request once its whole body has arrived. */
export type EndpointHandler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;

export interface HttpsEndpoint {
  server: Server;
  port: number;
  /** Drops every connection (a hung request included) and closes the server. */
  stop(): Promise<void>;
}

/** A local HTTPS server on 127.0.0.1 and a free port, handing each request with its body to `handle`. */
export async function startHttpsEndpoint(
  tls: { key: string; cert: string },
  handle: EndpointHandler,
): Promise<HttpsEndpoint> {
  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
