import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@gateway/testkit';
import { Gateway, GatewayConnectionError, GatewayError, isGatewayError } from '../src';
import { retryAfterSeconds } from '../src/transport';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Reply = (res: ServerResponse) => void;

const json =
  (status: number, payload: unknown, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers });
    res.end(JSON.stringify(payload));
  };
const contractError = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message: `mensagem de ${code}` } }, headers);
/** The connection dies before any answer, as when a proxy or the gateway's host goes away. */
const dropConnection: Reply = (res) => res.socket?.destroy();
const hang: Reply = () => undefined;
/** The status and the start of the body arrive, then the connection dies while the body is being read. */
const resetMidBody: Reply = (res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
  res.write('{"payment_id":');
  setTimeout(() => res.socket?.destroy(), 20);
};

/**
 * The client's retry rules against a real HTTP server that answers from a script: what is retried (429, 503, lost
 * connections, timeouts), with which waits and keys, and what is not.
 */
describe('Gateway client retries', () => {
  let server: Server;
  let baseUrl: string;
  let script: Reply[];
  let seen: Seen[];

  const client = (options: Partial<ConstructorParameters<typeof Gateway>[0]> = {}) =>
    new Gateway({ apiKey: 'sk_test_key', baseUrl, ...options });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        const reply = script.shift() ?? contractError(500, 'INTERNAL_ERROR');
        reply(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  beforeEach(() => {
    script = [];
    seen = [];
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('a POST after 503 with Retry-After is retried once that wait has passed, under the same Idempotency-Key', async () => {
    script = [
      contractError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }),
      json(201, { payment_id: 'pay_1' }),
    ];
    const started = Date.now();
    const created = await client().payments.create({ payment_method: 'pix', amount: 5000 });
    expect(created.payment_id).toBe('pay_1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(seen).toHaveLength(2);
    const [first, second] = seen;
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.body).toBe(first!.body);
    expect(JSON.parse(first!.body)).toEqual({ payment_method: 'pix', amount: 5000 });
    expect(first!.headers['x-api-key']).toBe('sk_test_key');
    expect(first!.url).toBe('/v1/payments');
  });

  test("a caller's own Idempotency-Key is sent, and each call without one gets its own", async () => {
    script = [json(201, {}), json(201, {}), json(201, {})];
    const gateway = client();
    await gateway.payments.create({ payment_method: 'pix', amount: 100 }, { idempotencyKey: 'order-1001' });
    await gateway.refunds.create('pay_1');
    await gateway.refunds.create('pay_1');
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual([
      'order-1001',
      expect.any(String),
      expect.any(String),
    ]);
    expect(seen[1]!.headers['idempotency-key']).not.toBe(seen[2]!.headers['idempotency-key']);
  });

  test('429 is retried after its Retry-After; a Retry-After longer than allowed is thrown at once with the wait', async () => {
    script = [contractError(429, 'RATE_LIMITED', { 'retry-after': '0' }), json(200, { payment_id: 'pay_1' })];
    expect((await client().payments.get('pay_1')).payment_id).toBe('pay_1');
    expect(seen).toHaveLength(2);

    seen = [];
    script = [contractError(429, 'RATE_LIMITED', { 'retry-after': '42' })];
    const error = await client({ maxRetryDelayMs: 5000 })
      .payments.get('pay_1')
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: 42 });
    expect(seen).toHaveLength(1);
  });

  test('a lost connection is retried for POST, GET and DELETE with the same key, never for PATCH', async () => {
    script = [dropConnection, json(200, { payment_id: 'pay_1', status: 'cancelled' })];
    await client({ maxRetries: 1 }).payments.cancel('pay_1');
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual([
      seen[0]!.headers['idempotency-key'],
      seen[0]!.headers['idempotency-key'],
    ]);

    seen = [];
    script = [dropConnection, json(200, { deleted: true })];
    expect(await client().webhooks.delete('wh_1')).toEqual({ deleted: true });
    expect(seen.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);

    seen = [];
    script = [dropConnection];
    const error = await client()
      .payments.update('pay_1', { amount: 200 })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(seen).toHaveLength(1);
  });

  test('a DELETE whose answer was lost, then NOT_FOUND on its retry, deleted it: answered as deleted', async () => {
    script = [dropConnection, contractError(404, 'NOT_FOUND')];
    expect(await client().webhooks.delete('wh_1')).toEqual({ deleted: true });
    expect(seen.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);

    // A NOT_FOUND with no lost attempt before it is the answer; so is one after a 503 (which applied nothing).
    for (const before of [[], [contractError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' })]]) {
      script = [...before, contractError(404, 'NOT_FOUND')];
      const missing = await client()
        .webhooks.delete('wh_2')
        .catch((err: unknown) => err);
      expect(isGatewayError(missing, 'NOT_FOUND')).toBe(true);
    }
    // Only a DELETE: a GET that finds nothing after a lost answer is still NOT_FOUND.
    script = [dropConnection, contractError(404, 'NOT_FOUND')];
    const read = await client()
      .webhooks.get('wh_1')
      .catch((err: unknown) => err);
    expect(isGatewayError(read, 'NOT_FOUND')).toBe(true);
  });

  test('a connection that breaks while the answer is read is retried, and is a GatewayConnectionError at the end', async () => {
    script = [resetMidBody, json(200, { payment_id: 'pay_1' })];
    expect((await client().payments.get('pay_1')).payment_id).toBe('pay_1');
    expect(seen).toHaveLength(2);

    seen = [];
    script = [resetMidBody];
    const error = await client({ maxRetries: 0 })
      .payments.create({ payment_method: 'pix', amount: 100 }, { idempotencyKey: 'order-9' })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error).toMatchObject({ idempotencyKey: 'order-9' });

    // PATCH is not retried, whenever the answer was lost.
    seen = [];
    script = [resetMidBody, json(200, {})];
    const patched = await client()
      .payments.update('pay_1', { amount: 200 })
      .catch((err: unknown) => err);
    expect(patched).toBeInstanceOf(GatewayConnectionError);
    expect(seen).toHaveLength(1);
  });

  test('Retry-After is delay-seconds or an IMF-fixdate; anything else is ignored, not read as a date', async () => {
    const now = Date.parse('2026-11-22T12:00:00.000Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 12:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const ignored of [
      '1.5',
      '-1',
      '1e3',
      '2026-11-22T12:00:30Z',
      'Sunday, 22-Nov-26 12:00:30 GMT',
      'soon',
      '',
    ])
      expect({ ignored, seconds: retryAfterSeconds(ignored, now) }).toEqual({ ignored, seconds: null });
    expect(retryAfterSeconds(null, now)).toBeNull();

    script = [contractError(429, 'RATE_LIMITED', { 'retry-after': '1.5' })];
    const error = await client({ maxRetries: 0 })
      .payments.get('pay_1')
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: null });
  });

  test('a timed-out attempt is retried, and after the last one the call fails with the connection error', async () => {
    script = [hang, hang];
    const error = await client({ timeoutMs: 200, maxRetries: 1 })
      .payments.create({ payment_method: 'pix', amount: 100 }, { idempotencyKey: 'order-7' })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect((error as GatewayConnectionError).idempotencyKey).toBe('order-7');
    expect(seen).toHaveLength(2);
  });

  test('503 is retried up to maxRetries, then thrown with its contract code', async () => {
    script = [0, 1, 2].map(() => contractError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }));
    const error = await client({ maxRetries: 2 })
      .customers.get('cust_1')
      .catch((err: unknown) => err);
    expect(isGatewayError(error, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(seen).toHaveLength(3);
  });

  test('other errors are thrown at once, typed by their contract code, with status and request id', async () => {
    script = [contractError(422, 'INVALID_AMOUNT')];
    const error = await client()
      .payments.create({ payment_method: 'pix', amount: 1 })
      .catch((err: unknown) => err);
    expect(isGatewayError(error, 'INVALID_AMOUNT')).toBe(true);
    expect(error).toMatchObject({
      status: 422,
      message: 'mensagem de INVALID_AMOUNT',
      requestId: 'req-1',
      idempotencyKey: expect.any(String),
    });
    expect(seen).toHaveLength(1);

    script = [(res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')];
    const proxied = await client()
      .events.get('evt_1')
      .catch((err: unknown) => err);
    expect(proxied).toMatchObject({ code: 'HTTP_502', status: 502, message: '<h1>Bad gateway</h1>' });
  });

  test("the caller's abort ends the call without retrying", async () => {
    script = [hang];
    const controller = new AbortController();
    const call = client().payments.get('pay_1', { signal: controller.signal });
    await waitFor(() => seen.length === 1, { what: 'the request to arrive' });
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });

  test('a list is awaited as its first page and iterated across pages with starting_after', async () => {
    const payment = (id: string) => ({ payment_id: id });
    script = [
      json(200, { data: [payment('pay_3'), payment('pay_2')], has_more: true }),
      json(200, { data: [payment('pay_3'), payment('pay_2')], has_more: true }),
      json(200, { data: [payment('pay_1')], has_more: false }),
    ];
    const list = client().payments.list({ limit: 2, status: 'paid', created_gte: undefined });
    expect((await list).data).toHaveLength(2);
    const ids: string[] = [];
    for await (const each of list) ids.push(each.payment_id);
    expect(ids).toEqual(['pay_3', 'pay_2', 'pay_1']);
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/payments?limit=2&status=paid',
      '/v1/payments?limit=2&status=paid',
      '/v1/payments?limit=2&status=paid&starting_after=pay_2',
    ]);
  });

  test("a webhook's deliveries are iterated by their own cursor, and path ids are encoded", async () => {
    script = [
      json(200, { data: [{ delivery_id: 'dlv_2' }], next_cursor: 'c/1' }),
      json(200, { data: [{ delivery_id: 'dlv_1' }], next_cursor: null }),
    ];
    const ids: string[] = [];
    for await (const delivery of client().webhooks.deliveries('wh_1', { limit: 1 }))
      ids.push(delivery.delivery_id);
    expect(ids).toEqual(['dlv_2', 'dlv_1']);
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/webhook/wh_1/deliveries?limit=1',
      '/v1/webhook/wh_1/deliveries?limit=1&cursor=c%2F1',
    ]);

    script = [json(200, {})];
    await client().payments.get('pay_../x');
    expect(seen.at(-1)!.url).toBe('/v1/payments/pay_..%2Fx');
  });
  test('a statement is the CSV text as sent, asked for as text/csv, and retried after 503 like any GET', async () => {
    const csv = 'id,created_at,type\r\nbtx_1,"a,b",payment\r\n';
    const csvReply: Reply = (res) => {
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      res.end(csv);
    };
    script = [contractError(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }), csvReply];
    expect(await client().statements.get('2026-11')).toBe(csv);
    expect(seen.map(({ method, url, headers }) => [method, url, headers.accept])).toEqual([
      ['GET', '/v1/statements/2026-11', 'text/csv'],
      ['GET', '/v1/statements/2026-11', 'text/csv'],
    ]);
    script = [contractError(422, 'INVALID_FIELDS')];
    await expect(client().statements.get('2026-13')).rejects.toMatchObject({
      code: 'INVALID_FIELDS',
      status: 422,
    });
  });
});
