import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type HttpsEndpoint, startHttpsEndpoint } from '@gateway/testkit';

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

/** How the receiver answers one request. */
export type Answer = (req: IncomingMessage, res: ServerResponse) => void;

export const answers = {
  status:
    (code: number, headers: Record<string, string> = {}): Answer =>
    (_req, res) => {
      res.writeHead(code, headers).end(`status ${code}`);
    },
  /** Never answers; the connection is only closed when the receiver stops. */
  hang: (): Answer => () => undefined,
  /** Drops the TCP connection without a response. */
  reset: (): Answer => (req) => req.socket.destroy(),
  delayed:
    (ms: number, code = 200): Answer =>
    (_req, res) => {
      setTimeout(() => res.writeHead(code).end('ok'), ms);
    },
};

/**
 * A local HTTPS endpoint with a script of answers per path: the n-th request to a path gets the n-th answer, the
 * last one repeating. Counts requests for one event id that are open at the same time.
 */
export class Receiver {
  readonly hits: Hit[] = [];
  connections = 0;
  /** Highest number of requests with the same `webhook-id` open at once. */
  maxConcurrentPerEvent = 0;
  private readonly scripts = new Map<string, Answer[]>();
  private readonly openPerEvent = new Map<string, number>();
  private endpoint!: HttpsEndpoint;

  private constructor() {}

  static async start(tls: { key: string; cert: string }): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.endpoint = await startHttpsEndpoint(tls, (req, body, res) => receiver.onRequest(req, body, res));
    receiver.endpoint.server.on('connection', () => (receiver.connections += 1));
    return receiver;
  }

  /** Scripts the answers for `path` and returns its URL. */
  route(path: string, ...script: Answer[]): string {
    this.scripts.set(path, script);
    return this.url(path);
  }

  url(path: string, host = '127.0.0.1'): string {
    return `https://${host}:${this.endpoint.port}${path}`;
  }

  hitsTo(path: string): Hit[] {
    return this.hits.filter((hit) => hit.path === path);
  }

  stop(): Promise<void> {
    return this.endpoint.stop();
  }

  private onRequest(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const path = req.url ?? '/';
    const eventId = String(req.headers['webhook-id'] ?? '');
    const open = (this.openPerEvent.get(eventId) ?? 0) + 1;
    this.openPerEvent.set(eventId, open);
    this.maxConcurrentPerEvent = Math.max(this.maxConcurrentPerEvent, open);
    res.on('close', () => this.openPerEvent.set(eventId, (this.openPerEvent.get(eventId) ?? 1) - 1));
    const index = this.hitsTo(path).length;
    this.hits.push({ path, headers: req.headers, body, receivedAt: Date.now() });
    const script = this.scripts.get(path) ?? [answers.status(404)];
    const answer = script[Math.min(index, script.length - 1)]!;
    answer(req, res);
  }
}
