import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '@gateway/http-errors';
import {
  expectError,
  nestedObject,
  parseJson,
  unservedMethodTests,
  withJson,
  type Answer,
  type HostileStack,
} from '../support/hostile-input';

/**
 * Hostile HTTP on any route: the process routes, unknown paths, headers and credentials, requests node itself cannot
 * parse, and a burst of hostile requests; then the stack is still fast, no service failed a message and no process
 * logged an error.
 */
export function anyRoute(h: HostileStack): void {
  const { a, hit, asA, asAdmin } = h;

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, [
      ['/healthz', () => '/healthz', ['GET'], () => ({})],
      ['/readyz', () => '/readyz', ['GET'], () => ({})],
      ['/metrics', () => '/metrics', ['GET'], () => ({})],
    ]);

    test.each([
      '/v2/payments',
      '/v1',
      '/v1/',
      '/v1//payments',
      '/v1/payments/',
      '/%00',
      '/v1/%00',
      '/admin/v1/%00',
      '/admin/v1/../../v1/payments',
      `/${'x'.repeat(6000)}`,
    ])('the unknown path %s is NOT_FOUND', async (path) => {
      const answer = await hit('GET', path, { headers: { ...asA(), ...asAdmin() } });
      expectError(answer, 'NOT_FOUND');
    });

    test('nothing was parked', h.nothingParked);
  });

  describe('hostile headers, credentials and query strings', () => {
    test('a 20 KiB header is refused in the contract shape', async () => {
      const answer = await hit('GET', `/v1/payments/${a.pixId}`, {
        headers: asA({ 'x-filler': 'x'.repeat(20 * 1024) }),
      });
      expectError(answer, 'PAYLOAD_TOO_LARGE', 'INVALID_JSON');
    });

    test('an 8 KiB harmless header does not change the answer', async () => {
      const answer = await hit('GET', `/v1/payments/${a.pixId}`, {
        headers: asA({ 'x-filler': 'x'.repeat(8 * 1024) }),
      });
      expect(answer.status).toBe(200);
    });

    test.each([
      ['missing', undefined],
      ['empty', ''],
      ['8 KiB long', `sk_test_${'a'.repeat(8 * 1024)}`],
      ['latin-1 bytes', 'sk_test_\xff\xfe\xfd'],
      ['of the other environment', 'sk_live_abcdefghijklmnopqrstuvwxyz012345'],
      ['two keys in one header', 'sk_test_a, sk_test_b'],
    ])('an API key %s is UNAUTHORIZED', async (_what, key) => {
      const headers = key === undefined ? {} : { 'x-api-key': key };
      expectError(await hit('GET', `/v1/payments/${a.pixId}`, { headers }), 'UNAUTHORIZED');
      expectError(
        await hit('POST', '/v1/payments', withJson(headers, '{"payment_method":"pix","amount":1000}')),
        'UNAUTHORIZED',
      );
    });
  });

  describe('requests node itself cannot parse still get the contract shape', () => {
    /** Raw bytes on a socket: what no well-behaved HTTP client would send. */
    const raw = (bytes: Buffer): Promise<Answer> =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        const socket = connect(Number(h.gateway.port), h.gateway.hostname);
        const chunks: Buffer[] = [];
        socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')));
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const [head = '', body = ''] = text.split('\r\n\r\n');
          const headers: IncomingHttpHeaders = {};
          for (const line of head.split('\r\n').slice(1)) {
            const at = line.indexOf(':');
            if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
          }
          resolve({
            status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
            headers,
            text: body,
            json: parseJson(body),
            ms: performance.now() - started,
          });
        });
        socket.end(bytes);
      });

    /** Node's parser refuses these before express sees them: the gateway answers them INVALID_JSON itself. */
    test.each([
      [
        'a NUL in the request line',
        Buffer.from(`GET /v1/payments/pay_\u0000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'),
      ],
      [
        'a NUL in a header',
        Buffer.from(
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n`,
          'latin1',
        ),
      ],
      [
        'Content-Length and Transfer-Encoding together',
        Buffer.from(
          'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
        ),
      ],
      ['a malformed request line', Buffer.from('GARBAGE\r\n\r\n')],
      [
        'raw non-ASCII bytes in a payment id',
        Buffer.from(
          `GET /v1/payments/pay_\xff\xfeabcdefghijklmnopqrstuvwx HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          'latin1',
        ),
      ],
      [
        'raw non-ASCII bytes in a slug',
        Buffer.from(`GET /c/loja-\xff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'),
      ],
      ['no Host header', Buffer.from('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n')],
      ['a lower-case method', Buffer.from('get /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')],
      [
        'an unknown HTTP version',
        Buffer.from('GET /healthz HTTP/7.3\r\nHost: x\r\nConnection: close\r\n\r\n'),
      ],
      [
        'a header folded over two lines',
        Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\nConnection: close\r\n\r\n'),
      ],
      [
        'a bad chunk size',
        Buffer.from(
          'POST /v1/payments HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n',
        ),
      ],
    ])('%s is INVALID_JSON', async (_what, bytes) => {
      expectError(await raw(bytes), 'INVALID_JSON');
    });

    /**
     * With a valid key (or on the public session route) express runs the route while node refuses the body, so the
     * body parser finds the stream gone: still the client's 400, and no error logged (checked at the end). Many tries,
     * since which of the two comes first varies.
     */
    const badChunkTo = (path: string, headers: string) =>
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      );
    test.each([
      ['to an authenticated create', () => badChunkTo('/v1/customers', `x-api-key: ${a.apiKey}\r\n`)],
      ['to the public session route', () => badChunkTo(`/c/${a.slug}/sessions`, '')],
    ])('a bad chunk size %s is INVALID_JSON every time', async (_what, request) => {
      for (let attempt = 0; attempt < 40; attempt += 1) expectError(await raw(request()), 'INVALID_JSON');
    });
  });

  describe('under a burst of hostile requests the stack stays fast', () => {
    test('32 hostile requests at once are each refused in under a second, then a normal create and read are fast', async () => {
      const burst: Array<() => Promise<[Answer, ErrorCode]>> = [];
      for (let n = 0; n < 8; n += 1) {
        burst.push(async () => [await hit('GET', '/v1/payments/pay_%00', { headers: asA() }), 'NOT_FOUND']);
        burst.push(async () => [await hit('GET', '/c/%E0%A4%A/sessions/%00'), 'NOT_FOUND']);
        burst.push(async () => [
          await hit(
            'POST',
            '/v1/payments',
            withJson(asA({ 'idempotency-key': randomUUID() }), nestedObject(10_000)),
          ),
          'INVALID_JSON',
        ]);
        burst.push(async () => [
          await hit(
            'POST',
            '/v1/payments',
            withJson(
              asA(),
              n % 2 === 0
                ? '{"payment_method":"pix","amount":1000000000000}'
                : '{"payment_method":"crypto","amount":1000000000000000,"crypto":{"currency":"usdc","network":"solana"}}',
            ),
          ),
          'INVALID_AMOUNT',
        ]);
      }
      const answers = await Promise.all(burst.map((send) => send()));
      for (const [answer, code] of answers) expectError(answer, code);
      await h.expectStillFast();
    });

    test('after every hostile request above, no service failed a message (so none is redelivered) and nothing is parked', async () => {
      expect(await h.handlerFailuresNow()).toEqual(h.failuresAfterSetup);
      await h.nothingParked();
      await h.expectStillFast();
    });
  });

  test('no process logged an error for any of it: hostile input is never a defect with a stack trace', () => {
    expect(h.errorLinesSinceSetup()).toEqual([]);
  });
}
