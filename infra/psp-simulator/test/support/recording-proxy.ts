import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { request } from 'undici';
import { type RecordedReply } from './api-pix-spec';

export interface RecordedExchange {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  reply: RecordedReply;
}

export interface RecordingProxy {
  url: string;
  exchanges: RecordedExchange[];
  close: () => Promise<void>;
}

/**
 * An HTTP proxy in front of a server that keeps every request and answer as they crossed the wire. The `Host` header
 * is passed on, so what the server builds from it (a payload location) names the proxy and is recorded too.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: RecordedExchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      request(`${target}${req.url}`, {
        method: req.method as 'GET',
        headers: { ...req.headers, connection: undefined },
        body: body.length > 0 ? body : undefined,
      })
        .then(async (answer) => {
          const text = await answer.body.text();
          const contentType = answer.headers['content-type'];
          const passed: Record<string, string> = {};
          for (const name of ['content-type', 'retry-after', 'www-authenticate', 'cache-control']) {
            const value = answer.headers[name];
            if (typeof value === 'string') passed[name] = value;
          }
          exchanges.push({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            headers: req.headers,
            body,
            reply: {
              status: answer.statusCode,
              contentType: typeof contentType === 'string' ? contentType : undefined,
              body: text,
            },
          });
          res.writeHead(answer.statusCode, passed).end(text);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
