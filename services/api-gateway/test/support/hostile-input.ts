import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { errorCatalog, isErrorCode, type ErrorCode } from '@gateway/http-errors';
import { startStack, takeEveryParkedMessage, type RunningStack } from '@gateway/testkit';

/**
 * Hostile input against the whole stack (every process, as `npm start` runs it), only through public HTTP: every
 * class of bad input on every route, one module per route family (`test/hostile-input/`), all run on one stack by
 * `hostile-input.e2e.test.ts` through `hostileStackForThisFile()`. Each refusal must be a 4xx in the contract's shape with the right
 * code, answered in under a second, and must leave no parked message behind; afterwards the stack must still answer
 * a normal request quickly, no service may have failed a message and no process may have logged an error.
 */

/** A bad input is answered in well under a second. */
export const FAST_MS = 1000;
/** pino's level of `error` (and 60, `fatal`, above it). */
const PINO_ERROR_LEVEL = 50;

/** Every handler failure a service counted: `broker_messages_failed_total`, summed over its queues and kinds. */
async function handlerFailuresCounted(metricsUrl: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('broker_messages_failed_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The lines a stack's processes logged at error level or above, with the process name the launcher put first. */
function errorLevelLines(logs: string[]): string[] {
  return logs
    .join('')
    .split('\n')
    .filter((line) => {
      const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
      return level >= PINO_ERROR_LEVEL;
    });
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
  ms: number;
}

export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A compact view of an answer that fails the test readably. */
function errorView(answer: Answer) {
  const error = answer.json?.error;
  return {
    status: answer.status,
    contentType: String(answer.headers['content-type'] ?? '').split(';')[0],
    topLevelKeys:
      answer.json && typeof answer.json === 'object' ? Object.keys(answer.json) : answer.text.slice(0, 200),
    code: error?.code,
    hasMessage: typeof error?.message === 'string' && error.message.length > 0,
    fast: answer.ms < FAST_MS ? true : `${Math.round(answer.ms)} ms`,
  };
}

/** The contract's error: `{"error":{"code","message"}}`, JSON, the code's own status, fast; one of `codes`. */
export function expectError(answer: Answer, ...codes: ErrorCode[]): void {
  const actual = answer.json?.error?.code as ErrorCode | undefined;
  const code = actual && codes.includes(actual) ? actual : codes[0]!;
  expect(errorView(answer)).toEqual({
    status: isErrorCode(code)
      ? errorCatalog[code].status
      : `the status of ${String(code)} (not in the catalog)`,
    contentType: 'application/json',
    topLevelKeys: ['error'],
    code,
    hasMessage: true,
    fast: true,
  });
}

/** `/c/{slug}` is a page: an unknown or malformed slug is always its 404 page, in HTML. */
export function expectNotFoundPage(answer: Answer): void {
  const view = errorView(answer);
  expect({ status: view.status, contentType: view.contentType, fast: view.fast }).toEqual({
    status: 404,
    contentType: 'text/html',
    fast: true,
  });
}

/** Bytes as `%XX` each: how any byte sequence (invalid UTF-8 included) reaches a path. */
export const percentEncoded = (bytes: Buffer): string =>
  [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** Whether a JSON value holds a NUL character in any string or key. */
export const containsNul = (value: unknown): boolean =>
  typeof value === 'string'
    ? value.includes('\u0000')
    : typeof value === 'object' && value !== null
      ? Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item))
      : false;

/** `{"a":{"a":...}}` `levels` deep. */
export const nestedObject = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
/** A payment body whose metadata is an array `levels` deep. */
const nestedInField = (levels: number): string =>
  `{"payment_method":"pix","amount":1000,"metadata":${'['.repeat(levels)}${']'.repeat(levels)}}`;

export const json = (body: string | Buffer) => ({ headers: { 'content-type': 'application/json' }, body });
export const withJson = (headers: OutgoingHttpHeaders, body: string | Buffer) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

/** What every file sets up first: business A with a product, a checkout, a session, two payments and a webhook. */
export interface BusinessA {
  businessId: string;
  apiKey: string;
  keyPrefix: string;
  productId: string;
  checkoutId: string;
  slug: string;
  sessionId: string;
  pixId: string;
  cryptoId: string;
  webhookId: string;
}

export interface HostileStack {
  /** The running stack (there from the file's `beforeAll` on). */
  readonly stack: RunningStack;
  readonly gateway: URL;
  /** Business A, whose resources the file's tests aim at. */
  readonly a: BusinessA;
  /** Business B, which asks for A's resources. */
  readonly b: { businessId: string; apiKey: string };
  hit(
    method: string,
    path: string,
    options?: { headers?: OutgoingHttpHeaders; body?: string | Buffer },
  ): Promise<Answer>;
  /** Headers as business A (its API key), then `headers`. */
  asA(headers?: OutgoingHttpHeaders): OutgoingHttpHeaders;
  /** Headers as the operator (the admin bearer), then `headers`. */
  asAdmin(headers?: OutgoingHttpHeaders): OutgoingHttpHeaders;
  /** No parked message under the stack's prefix (a `test` of its own at the end of a describe). */
  nothingParked(): Promise<void>;
  /** A normal create and read of a payment, each answered fast: the stack is not slowed by what came before. */
  expectStillFast(): Promise<void>;
  /** Each process's handler failures, counted now. */
  handlerFailuresNow(): Promise<Record<string, number>>;
  /** Each process's handler failures, counted once the setup was done: hostile input must add none. */
  readonly failuresAfterSetup: Record<string, number>;
  /**
   * The lines the stack's processes logged at error level or above since the setup: what the hostile input caused (a
   * start under load may log its own, e.g. the PIX adapter retrying the PSP before the simulator listens).
   */
  errorLinesSinceSetup(): string[];
}

/**
 * The file's stack, started (rate limits out of the way) before its tests, with businesses A and B set up; after the
 * tests, before it stops, the stack is checked as the any-route family's last tests check theirs: since the setup, no
 * service failed a message and no process logged an error, and nothing is parked. A failed check fails the file.
 */
export function hostileStackForThisFile(): HostileStack {
  let stack: RunningStack;
  let gateway: URL;
  const a = {} as BusinessA;
  const b = {} as { businessId: string; apiKey: string };
  let failuresAfterSetup: Record<string, number>;
  /** How many chunks of the stack's output came before the hostile input (its start, the setup). */
  let logChunksAtSetup = 0;
  const everyMetricsUrl = () => [stack.gatewayUrl, ...Object.values(stack.metricsUrls)];
  const handlerFailuresNow = async () =>
    Object.fromEntries(
      await Promise.all(everyMetricsUrl().map(async (url) => [url, await handlerFailuresCounted(url)])),
    ) as Record<string, number>;

  const hit: HostileStack['hit'] = (method, path, options = {}) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      let answered = false;
      const req = httpRequest(
        {
          host: gateway.hostname,
          port: gateway.port,
          method,
          path,
          agent: false,
          headers: {
            ...(options.body === undefined ? {} : { 'content-length': Buffer.byteLength(options.body) }),
            ...options.headers,
          },
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: parseJson(text),
              ms: performance.now() - started,
            });
          });
          res.on('error', reject);
        },
      );
      // The server may answer (413) and close before the whole body is written.
      req.on('error', (err) => (answered ? undefined : reject(err)));
      req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
      req.end(options.body);
    });

  const asA = (headers: OutgoingHttpHeaders = {}) => ({ 'x-api-key': a.apiKey, ...headers });
  const asAdmin = (headers: OutgoingHttpHeaders = {}) => ({
    authorization: `Bearer ${stack.adminToken}`,
    ...headers,
  });

  /** What a setup step must get, or the file cannot run. */
  const ok = async (answer: Promise<Answer>, what: string): Promise<any> => {
    const got = await answer;
    if (got.status >= 300) throw new Error(`${what}: ${got.status} ${got.text.slice(0, 300)}`);
    return got.json;
  };

  const errorLinesSinceSetup = () => errorLevelLines(stack.logs.slice(logChunksAtSetup));

  const nothingParked = async () => {
    const parked = await takeEveryParkedMessage(stack.env.config.AMQP_PREFIX);
    expect(parked).toEqual([]);
  };

  const expectStillFast = async () => {
    const created = await hit(
      'POST',
      '/v1/payments',
      withJson(asA(), JSON.stringify({ payment_method: 'pix', amount: 1234, currency: 'brl' })),
    );
    expect({ status: created.status, fast: created.ms < FAST_MS || `${Math.round(created.ms)} ms` }).toEqual({
      status: 201,
      fast: true,
    });
    const read = await hit('GET', `/v1/payments/${created.json.payment_id}`, { headers: asA() });
    expect({ status: read.status, fast: read.ms < FAST_MS || `${Math.round(read.ms)} ms` }).toEqual({
      status: 200,
      fast: true,
    });
  };

  beforeAll(async () => {
    stack = await startStack({
      ADMIN_RATE_LIMIT_PER_MINUTE: '1000000',
      CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
    gateway = new URL(stack.gatewayUrl);
    for (const [target, name] of [
      [a, 'Loja Hostil A'],
      [b, 'Loja Hostil B'],
    ] as const) {
      const business = await ok(
        hit('POST', '/admin/v1/businesses', withJson(asAdmin(), JSON.stringify({ name }))),
        'business',
      );
      Object.assign(target, { businessId: business.business_id, apiKey: business.api_key });
      if (target === a) a.keyPrefix = business.key_prefix;
      for (const method of ['pix', 'crypto']) {
        await ok(
          hit(
            'PUT',
            `/admin/v1/businesses/${business.business_id}/fee-rules/${method}`,
            withJson(asAdmin(), JSON.stringify({ percent_bps: 100, fixed_centavos: 0 })),
          ),
          'fee rule',
        );
      }
    }
    const product = await ok(
      hit(
        'POST',
        `/admin/v1/businesses/${a.businessId}/products`,
        withJson(asAdmin(), JSON.stringify({ name: 'Caneca', price: 4990 })),
      ),
      'product',
    );
    a.productId = product.product_id;
    const checkout = await ok(
      hit(
        'POST',
        '/v1/checkouts',
        withJson(
          asA(),
          JSON.stringify({
            product_id: a.productId,
            return_url: 'https://loja.example/obrigado',
            cancel_url: 'https://loja.example/carrinho',
            title: 'Caneca',
          }),
        ),
      ),
      'checkout',
    );
    Object.assign(a, { checkoutId: checkout.checkout_id, slug: checkout.slug });
    const session = await ok(
      hit('POST', `/c/${a.slug}/sessions`, withJson({}, JSON.stringify({ method: 'pix' }))),
      'session',
    );
    a.sessionId = session.session_id;
    const pix = await ok(
      hit('POST', '/v1/payments', withJson(asA(), JSON.stringify({ payment_method: 'pix', amount: 1000 }))),
      'pix payment',
    );
    a.pixId = pix.payment_id;
    const crypto = await ok(
      hit(
        'POST',
        '/v1/payments',
        withJson(
          asA(),
          JSON.stringify({
            payment_method: 'crypto',
            amount: 1000,
            crypto: { currency: 'usdc', network: 'solana' },
          }),
        ),
      ),
      'crypto payment',
    );
    a.cryptoId = crypto.payment_id;
    const webhook = await ok(
      hit(
        'POST',
        '/v1/webhook',
        withJson(
          asA(),
          JSON.stringify({ url: 'https://hooks.example.test/hostil', events: ['payment.confirmed'] }),
        ),
      ),
      'webhook',
    );
    a.webhookId = webhook.webhook_id;
    failuresAfterSetup = await handlerFailuresNow();
    logChunksAtSetup = stack.logs.length;
  }, 150_000);

  afterAll(async () => {
    try {
      if (stack && failuresAfterSetup) {
        const after = {
          handlerFailures: await handlerFailuresNow(),
          parked: await takeEveryParkedMessage(stack.env.config.AMQP_PREFIX),
          errorLines: errorLinesSinceSetup(),
        };
        const expected = { handlerFailures: failuresAfterSetup, parked: [], errorLines: [] };
        expect(after).toEqual(expected);
      }
    } finally {
      await stack?.stop();
    }
  }, 60_000);

  return {
    get stack() {
      return stack;
    },
    get gateway() {
      return gateway;
    },
    a,
    b,
    hit,
    asA,
    asAdmin,
    nothingParked,
    expectStillFast,
    handlerFailuresNow,
    get failuresAfterSetup() {
      return failuresAfterSetup;
    },
    errorLinesSinceSetup,
  };
}

/** Path ids that cannot be any resource's: NUL, malformed or invalid percent-encoding, raw bytes, sizes, shapes. */
export const hostileIds: Array<[string, string]> = [
  ['a NUL byte', 'pay_%00'],
  ['only a NUL byte', '%00'],
  ['a truncated percent-encoding', 'pay_%E0%A4%A'],
  ['a lone percent sign', 'pay_%'],
  ['a non-hex percent-encoding', 'pay_%zz'],
  ['invalid UTF-8 bytes', `pay_${percentEncoded(Buffer.from([0xff, 0xfe, 0xc0, 0x80]))}`],
  ['an overlong UTF-8 NUL', `pay_${percentEncoded(Buffer.from([0xc0, 0x80]))}abcdefghijklmnopqrstuv`],
  ['an encoded CRLF and header', 'pay_abcdefghijklmnopqrstuvwx%0d%0aX-Injected:%201'],
  ['a path traversal', '..%2F..%2F..%2Fetc%2Fpasswd'],
  ['65 characters', `pay_${'a'.repeat(65)}`],
  ['5,000 characters', `pay_${'a'.repeat(5000)}`],
  ['too short', 'pay_abc'],
  ['emoji', encodeURIComponent('pay_😀😀😀😀😀😀😀😀😀😀😀😀😀😀')],
  ['an encoded NUL in a well-shaped id', `pay_abcdefghijklmnopqrstuvw%00`],
];

/** A /v1 route with a path id, as (method, path for an id, body). */
export type IdRoute = [string, (id: string) => string, string | undefined];

/**
 * "path ids that cannot exist are NOT_FOUND at once, on every route": every hostile id on each of `idRoutes`, with
 * business A's key and without a key.
 */
export function pathIdTests(h: HostileStack, idRoutes: IdRoute[]): void {
  const cases = idRoutes.flatMap(([method, path, body]) =>
    hostileIds.map(
      ([what, id]) => [`${method} ${path('{id}')} with ${what}`, method, path(id), body] as const,
    ),
  );

  test.each(cases)('%s', async (_name, method, path, body) => {
    const answer = await h.hit(
      method,
      path,
      body === undefined ? { headers: h.asA() } : withJson(h.asA(), body),
    );
    expectError(answer, 'NOT_FOUND');
  });

  test.each(
    idRoutes.flatMap(([method, path]) => ['%00', 'pay_%E0%A4%A'].map((id) => [method, path(id)] as const)),
  )(
    'without an API key %s %s is UNAUTHORIZED, or NOT_FOUND before the key is even looked at',
    async (method, path) => {
      expectError(await h.hit(method, path), 'UNAUTHORIZED', 'NOT_FOUND');
    },
  );
}

/** Bodies every route taking one must refuse the same way. */
const hostileBodies: Array<
  [string, () => { headers: OutgoingHttpHeaders; body: string | Buffer }, ErrorCode[]]
> = [
  ['nested 10,000 levels', () => json(nestedObject(10_000)), ['INVALID_JSON']],
  ['nested 10,000 levels inside a field', () => json(nestedInField(10_000)), ['INVALID_JSON']],
  ['nested 33 levels', () => json(nestedObject(33)), ['INVALID_JSON']],
  ['a top-level array', () => json('[{"payment_method":"pix","amount":1000}]'), ['INVALID_FIELDS']],
  ['an empty top-level array', () => json('[]'), ['INVALID_FIELDS']],
  ['a top-level string', () => json('"pix"'), ['INVALID_FIELDS']],
  ['a top-level number', () => json('42'), ['INVALID_FIELDS']],
  ['a top-level null', () => json('null'), ['INVALID_FIELDS']],
  ['a top-level boolean', () => json('true'), ['INVALID_FIELDS']],
  ['truncated JSON', () => json('{"payment_method":"pix",'), ['INVALID_JSON']],
  [
    'a NUL in a string',
    () => json('{"name":"a\\u0000b","title":"a\\u0000b","url":"https://a\\u0000"}'),
    ['INVALID_FIELDS'],
  ],
  ['a NUL in a key', () => json('{"a\\u0000b":1}'), ['INVALID_FIELDS']],
  ['a NUL deep inside', () => json('{"metadata":{"x":[{"y":"\\u0000"}]}}'), ['INVALID_FIELDS']],
  ['a raw NUL byte', () => json(Buffer.from('{"name":"a\u0000b"}', 'utf8')), ['INVALID_JSON']],
  [
    'invalid UTF-8 bytes in a string',
    () =>
      json(
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from('"}')]),
      ),
    ['INVALID_JSON'],
  ],
  ['65 KiB', () => json(JSON.stringify({ name: 'x'.repeat(65 * 1024) })), ['PAYLOAD_TOO_LARGE']],
  ['1 MiB', () => json(JSON.stringify({ name: 'x'.repeat(1024 * 1024) })), ['PAYLOAD_TOO_LARGE']],
  [
    'a bogus Content-Encoding',
    () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'bogus' }, body: '{}' }),
    ['INVALID_JSON'],
  ],
  [
    'gzip Content-Encoding over a body that is not gzip',
    () => ({
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{"a":1}',
    }),
    ['INVALID_JSON'],
  ],
  [
    'a gzip bomb (10 MiB once inflated)',
    () => ({
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.from(JSON.stringify({ name: ' '.repeat(10 * 1024 * 1024) }))),
    }),
    ['PAYLOAD_TOO_LARGE'],
  ],
  [
    'a charset JSON does not use',
    () => ({ headers: { 'content-type': 'application/json; charset=latin1' }, body: '{"name":"a"}' }),
    ['INVALID_JSON'],
  ],
];

/** A route that takes a body, as (method, name, path, headers). */
export type BodyRoute = [string, string, () => string, () => OutgoingHttpHeaders];

/**
 * "hostile bodies are clean 4xx on every route that takes a body": every hostile body on each of `bodyRoutes`, and a
 * JSON body sent as text/plain on those that are neither the hosted checkout's nor /v1/customers.
 */
export function hostileBodyTests(h: HostileStack, bodyRoutes: BodyRoute[]): void {
  const cases = bodyRoutes.flatMap(([method, name, path, headers]) =>
    hostileBodies.map(
      ([what, body, codes]) => [`${method} ${name}: ${what}`, method, path, headers, body, codes] as const,
    ),
  );

  test.each(cases)('%s', async (_name, method, path, headers, makeBody, codes) => {
    const body = makeBody();
    const answer = await h.hit(method, path(), {
      headers: { ...headers(), ...body.headers },
      body: body.body,
    });
    expectError(answer, ...codes);
  });

  test.each(bodyRoutes.filter(([, name]) => !name.startsWith('/c/') && name !== '/v1/customers'))(
    '%s %s with a JSON body sent as text/plain is refused, not half-read',
    async (method, _name, path, headers) => {
      const answer = await h.hit(method, path(), {
        headers: { ...headers(), 'content-type': 'text/plain' },
        body: '{"payment_method":"pix","amount":1000,"name":"x"}',
      });
      expectError(answer, 'INVALID_JSON', 'MISSING_FIELDS', 'INVALID_FIELDS');
    },
  );
}

/** A route with the methods it serves, as (name, path, methods, headers); any other method is an unknown route. */
export type ServedRoute = [string, () => string, string[], () => OutgoingHttpHeaders];

const oddMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
/** Reads reserved for the second wave: not unknown routes for long. */
const reserved = [
  'GET /v1/payments',
  'GET /v1/checkouts',
  'GET /v1/customers',
  'GET /v1/webhook',
  'GET /v1/webhook/{id}',
];

/** "methods a route does not serve are NOT_FOUND (an unknown route), on every route": on each of `routes`. */
export function unservedMethodTests(h: HostileStack, routes: ServedRoute[]): void {
  const cases = routes.flatMap(([name, path, served, headers]) =>
    oddMethods
      .filter((method) => !served.includes(method) && !reserved.includes(`${method} ${name}`))
      .map((method) => [method, name, path, headers] as const),
  );

  test.each(cases)('%s %s', async (method, _name, path, headers) => {
    const withBody = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method);
    const answer = await h.hit(method, path(), withBody ? withJson(headers(), '{}') : { headers: headers() });
    expectError(answer, 'NOT_FOUND');
  });
}

/** One of business A's resources, as (method, what, path, body), that business B asks for. */
export type OtherBusinessRead = readonly [string, string, () => string, string | undefined];
/** A list route, as (route, id key, A's ids that may not show). */
export type OtherBusinessList = readonly [string, string, () => string[]];

/**
 * "another business's resources: NOT_FOUND on reads, FORBIDDEN on DELETE webhook": business B asking for each of
 * `reads` is NOT_FOUND; A's resources never show in B's `lists`, and one of them as B's cursor is INVALID_FIELDS.
 */
export function otherBusinessTests(
  h: HostileStack,
  reads: readonly OtherBusinessRead[],
  lists: readonly OtherBusinessList[],
): void {
  const asB = () => ({ 'x-api-key': h.b.apiKey });

  test.each(reads)('%s of %s is NOT_FOUND', async (method, _what, path, body) => {
    expectError(
      await h.hit(method, path(), body === undefined ? { headers: asB() } : withJson(asB(), body)),
      'NOT_FOUND',
    );
  });

  test.each(lists)(
    'a list of %s never shows them, and one of them as the cursor is INVALID_FIELDS',
    async (route, key, ids) => {
      const listed = await h.hit('GET', `/v1/${route}?limit=100`, { headers: asB() });
      expect(listed.status).toBe(200);
      const shown = (listed.json?.data as Array<Record<string, string>>).map((item) => item[key]);
      for (const id of ids()) expect(shown).not.toContain(id);
      expectError(
        await h.hit('GET', `/v1/${route}?starting_after=${ids()[0]}`, { headers: asB() }),
        'INVALID_FIELDS',
      );
    },
  );
}

/** A query string, as (what, path with it), that is INVALID_FIELDS. */
export type HostileQuery = [string, () => string];

/** "a query string with … is INVALID_FIELDS", for each of `queries`. */
export function hostileQueryTests(h: HostileStack, queries: HostileQuery[]): void {
  test.each(queries)('a query string with %s is INVALID_FIELDS', async (_what, path) => {
    expectError(await h.hit('GET', path(), { headers: h.asA() }), 'INVALID_FIELDS');
  });
}

/** Strings rich in what breaks things: NUL, controls, surrogates, percent signs, RTL, very long runs. */
export const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    '%',
    '%00',
    '%E0%A4%A',
    '\ud800',
    '\u202e',
    '../',
    '\r\n',
    'pay_',
    '\\',
    '"',
    "'",
  ),
  fc.string({
    unit: fc.constantFrom('\u0000', '%', 'a', '\u00ff', '\ud83d', '/', '.', '\u0301'),
    maxLength: 300,
  }),
);
