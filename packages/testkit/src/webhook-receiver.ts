import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type HttpsEndpoint, startHttpsEndpoint, waitFor } from '@gateway/testkit-core';
import type { JsonBody } from './stack-client';

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
  private endpoint!: HttpsEndpoint;

  private constructor() {}

  static async start(tls: { key: string; cert: string }): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.endpoint = await startHttpsEndpoint(tls, (req, body, res) => receiver.onRequest(req, body, res));
    return receiver;
  }

  url(path: string): string {
    return `https://localhost:${this.endpoint.port}${path}`;
  }

  /** The events delivered so far, parsed. */
  events(): Array<{ type: string; data: JsonBody }> {
    return this.deliveries.map((delivery) => JSON.parse(delivery.body));
  }

  /**
   * The first event of `type` about `id` (its refund_id, payout_id or dispute_id, else its payment_id, else its
   * subscription_id), once it is
   * delivered.
   */
  delivered(type: string, id: string, timeoutMs = 30_000): Promise<{ type: string; data: JsonBody }> {
    return waitFor(
      () =>
        this.events().find(
          (event) =>
            event.type === type &&
            (event.data.refund_id ??
              event.data.payout_id ??
              event.data.dispute_id ??
              event.data.payment_id ??
              event.data.subscription_id) === id,
        ),
      { timeoutMs, what: `the ${type} webhook of ${id}` },
    );
  }

  stop(): Promise<void> {
    return this.endpoint.stop();
  }

  private onRequest(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const mode = this.mode;
    const answer = mode === 'ok' ? 204 : mode === 'error' ? 500 : mode;
    this.deliveries.push({
      path: req.url ?? '/',
      headers: req.headers,
      body: body.toString('utf8'),
      answer,
      at: Date.now(),
    });
    if (mode === 'reset') req.socket.destroy();
    else if (mode !== 'hang') res.writeHead(answer as number).end();
    // A hung request stays open until the sender gives up (its timeout) or the receiver stops.
  }
}
