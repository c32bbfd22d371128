import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { waitFor } from '@gateway/testkit';
import { gracefulHttpStop, HALF_SENT_REQUEST_GRACE_MS } from '../src';

/** Room for a busy machine on top of what the stop itself must wait. */
const SLACK_MS = 1500;

/** A raw connection to the server that sends `text` (perhaps half a request) and no more. */
async function rawConnection(port: number, text = ''): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  // Reads what comes, so it sees the server close the connection.
  socket.resume();
  await new Promise((resolve) => socket.once('connect', resolve));
  if (text) socket.write(text);
  return socket;
}

const connectionCount = (server: Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );

const closed = (socket: Socket) =>
  socket.destroyed ? Promise.resolve() : new Promise((resolve) => socket.once('close', resolve));

describe('an HTTP listener stopping (gracefulHttpStop: the gateway, the PSP callback and the metrics listeners)', () => {
  let server: Server;
  let stop: () => Promise<void>;
  let port: number;
  /** Answers the test holds back, by path. */
  const held = new Map<string, ServerResponse>();
  const sockets: Socket[] = [];
  let requestsStarted = 0;

  beforeEach(async () => {
    requestsStarted = 0;
    server = createServer((req, res) => {
      requestsStarted += 1;
      req.resume();
      req.on('end', () => {
        if (req.url === '/now') res.end('now');
        else held.set(req.url ?? '', res);
      });
    });
    stop = gracefulHttpStop(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    held.clear();
    sockets.splice(0).forEach((socket) => socket.destroy());
    server.closeAllConnections();
    server.close();
  });

  test('an idle connection, one with half its headers sent and one with half its body sent hold the stop no longer than the grace', async () => {
    sockets.push(
      await rawConnection(port),
      await rawConnection(port, 'POST /now HTTP/1.1\r\nHost: x\r\nContent-Le'),
      await rawConnection(port, 'POST /now HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc'),
    );
    // The server holds the three, and the request whose body is half sent has started.
    await waitFor(async () => (await connectionCount(server)) === 3 && requestsStarted === 1);

    const began = Date.now();
    await stop();
    const tookMs = Date.now() - began;

    expect(tookMs).toBeLessThan(HALF_SENT_REQUEST_GRACE_MS + SLACK_MS);
    await Promise.all(sockets.map(closed));
  });

  test('a request received whole before the stop gets its answer, with Connection: close, however long past the grace it takes', async () => {
    const answer = new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/slow', method: 'GET', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
        );
      });
      req.on('error', reject);
      req.end();
    });
    // A connection still sending its headers: the stop drops it when the grace is over, which marks that instant.
    const halfSent = await rawConnection(port, 'POST /now HTTP/1.1\r\nHost: x\r\nContent-Le');
    sockets.push(halfSent);
    await waitFor(async () => held.has('/slow') && (await connectionCount(server)) === 2);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    const began = Date.now();
    await closed(halfSent);
    // The grace is over and what it ends has been handled; the answer owed still holds the stop.
    expect(Date.now() - began).toBeGreaterThanOrEqual(HALF_SENT_REQUEST_GRACE_MS - 50);
    expect(stopped).toBe(false);

    held.get('/slow')!.end('late');
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'late' });
    await stopping;
  });

  test('a kept-alive connection whose answer was under way at the stop is closed once it is answered, not at its keep-alive timeout', async () => {
    const socket = await rawConnection(port, 'GET /streaming HTTP/1.1\r\nHost: x\r\n\r\n');
    sockets.push(socket);
    await waitFor(() => held.has('/streaming'));
    // Its headers go out before the stop: they cannot say Connection: close any more.
    const res = held.get('/streaming')!;
    res.write('part one');
    const stopping = stop();

    const began = Date.now();
    res.end();
    await stopping;
    await closed(socket);

    expect(Date.now() - began).toBeLessThan(HALF_SENT_REQUEST_GRACE_MS + SLACK_MS);
    expect(server.keepAliveTimeout).toBeGreaterThan(HALF_SENT_REQUEST_GRACE_MS + SLACK_MS);
  });
});
