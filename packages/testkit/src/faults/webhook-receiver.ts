import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import { type AddressInfo } from 'node:net';

/** How the receiver answers for now: 204, 500, never (hang), or by dropping the connection (reset). */
export type ReceiverMode = 'ok' | 'error' | 'hang' | 'reset';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  /** The status answered, or how the request was left unanswered. */
  answer: number | 'hang' | 'reset';
  at: number;
}

/** A local HTTPS webhook endpoint whose behaviour a fault test switches at will; it keeps every request. */
export class FaultyWebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  mode: ReceiverMode = 'ok';
  private port = 0;

  private constructor(private readonly server: Server) {}

  static async start(tls: { key: string; cert: string }): Promise<FaultyWebhookReceiver> {
    const receiver = new FaultyWebhookReceiver(createServer(tls));
    receiver.server.on('request', (req: IncomingMessage, res: ServerResponse) =>
      receiver.onRequest(req, res),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  url(path: string): string {
    return `https://localhost:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const mode = this.mode;
      const answer = mode === 'ok' ? 204 : mode === 'error' ? 500 : mode;
      this.deliveries.push({
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answer,
        at: Date.now(),
      });
      if (mode === 'reset') req.socket.destroy();
      else if (mode !== 'hang') res.writeHead(answer as number).end();
      // A hung request stays open until the sender gives up (its timeout) or the receiver stops.
    });
  }
}
