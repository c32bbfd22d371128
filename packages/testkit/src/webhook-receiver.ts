import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import { type AddressInfo } from 'node:net';
import type { JsonBody } from './stack-client';
import { waitFor } from './wait';

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

/**
 * A local HTTPS webhook endpoint that keeps every request: it answers 204 unless a fault test switches its behaviour.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  mode: ReceiverMode = 'ok';
  private port = 0;

  private constructor(private readonly server: Server) {}

  static async start(tls: { key: string; cert: string }): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(createServer(tls));
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

  /** The events delivered so far, parsed. */
  events(): Array<{ type: string; data: JsonBody }> {
    return this.deliveries.map((delivery) => JSON.parse(delivery.body));
  }

  /** The first event of `type` about `id` (its refund_id, else its payment_id), once it is delivered. */
  delivered(type: string, id: string, timeoutMs = 30_000): Promise<{ type: string; data: JsonBody }> {
    return waitFor(
      () =>
        this.events().find(
          (event) => event.type === type && (event.data.refund_id ?? event.data.payment_id) === id,
        ),
      { timeoutMs, what: `the ${type} webhook of ${id}` },
    );
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
