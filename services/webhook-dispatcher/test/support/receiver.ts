import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import { type AddressInfo } from 'node:net';

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
  private port = 0;

  private constructor(private readonly server: Server) {}

  static async start(tls: { key: string; cert: string }): Promise<Receiver> {
    const receiver = new Receiver(createServer(tls));
    receiver.server.on('connection', () => (receiver.connections += 1));
    receiver.server.on('request', (req: IncomingMessage, res: ServerResponse) =>
      receiver.onRequest(req, res),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  /** Scripts the answers for `path` and returns its URL. */
  route(path: string, ...script: Answer[]): string {
    this.scripts.set(path, script);
    return this.url(path);
  }

  url(path: string, host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  hitsTo(path: string): Hit[] {
    return this.hits.filter((hit) => hit.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const eventId = String(req.headers['webhook-id'] ?? '');
      const open = (this.openPerEvent.get(eventId) ?? 0) + 1;
      this.openPerEvent.set(eventId, open);
      this.maxConcurrentPerEvent = Math.max(this.maxConcurrentPerEvent, open);
      res.on('close', () => this.openPerEvent.set(eventId, (this.openPerEvent.get(eventId) ?? 1) - 1));
      const index = this.hitsTo(path).length;
      this.hits.push({ path, headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now() });
      const script = this.scripts.get(path) ?? [answers.status(404)];
      const answer = script[Math.min(index, script.length - 1)]!;
      answer(req, res);
    });
  }
}
