import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  MAX_AMOUNT_CENTAVOS,
  MIN_AMOUNT_CENTAVOS,
  MAX_JSON_DEPTH,
  TEXT_LIMITS,
  createCheckout,
  createCustomer,
  createPayment,
  createProduct,
  newPublicId,
  sendTestWebhook,
} from '@gateway/contracts';
import { aCryptoPaymentView, aPixPaymentView } from '@gateway/testkit';
import { aCheckoutCreatedFor, aCustomer } from './support/builders';
import { ADMIN_TOKEN, startHarness, type Harness } from './support/harness';

/** docs/adr/0017-rate-limits-and-input-bounds.md: "a bad input is answered in well under a second". */
const FAST_MS = 1000;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const expectRefusal = (response: Answer, status: number, code: string) => {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
};

/** `{"a":{"a":...}}` nested `levels` deep (the innermost is `{}`), as JSON text. */
const nestedJson = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

/** Sends raw bytes (what a client library would refuse to send) and reads the answer's status and body. */
async function rawRequest(port: number, head: string): Promise<{ status: number; body: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(head);
  });
  const [statusLine = '', ...rest] = text.split('\r\n');
  return { status: Number(statusLine.split(' ')[1]), body: rest.join('\r\n').split('\r\n\r\n')[1] ?? '' };
}

describe('api gateway: input bounds, refused at the edge before any command is sent', () => {
  let h: Harness;
  let apiKey: string;

  beforeAll(async () => {
    h = await startHarness('gw-bounds');
    apiKey = (await h.newBusiness('Loja dos Limites')).api_key;
    h.fakes.on(createPayment, async (command) =>
      command.method === 'crypto'
        ? aCryptoPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos })
        : aPixPaymentView({ business_id: command.business_id, amount_centavos: command.amount_centavos }),
    );
  });
  afterAll(async () => h.close());

  /** Runs a request expected to be refused: in the contract's shape, fast, and with nothing sent downstream. */
  async function refused(send: () => PromiseLike<Answer>, status: number, code: string): Promise<Answer> {
    const sentBefore = h.fakes.received.length;
    const started = Date.now();
    const response = await send();
    expect(Date.now() - started).toBeLessThan(FAST_MS);
    expectRefusal(response, status, code);
    expect(h.fakes.received.slice(sentBefore)).toEqual([]);
    return response;
  }

  const asMerchant = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    h.http[method](path).set('x-api-key', apiKey);
  const asOperator = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
    h.http[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);

  /** POSTs exact bytes (supertest would serialize a Buffer as JSON) with the merchant's key. */
  const postBytes = async (path: string, headers: Record<string, string>, bytes: Buffer): Promise<Answer> => {
    const response = await fetch(`${h.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      body: bytes,
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body: text ? (JSON.parse(text) as unknown) : undefined,
    };
  };

  describe('path ids without their resource shape are NOT_FOUND', () => {
    const wh = newPublicId('wh');
    test.each([
      ['get', '/v1/payments/pay_%00'],
      ['get', `/v1/payments/pay_${'a'.repeat(23)}`],
      ['get', `/v1/payments/pay_${'a'.repeat(65)}`],
      ['get', `/v1/payments/${newPublicId('chk')}`],
      ['get', '/v1/payments/pay_abcdefghijklmnopqrstuv%2Fwx'],
      ['get', '/v1/payments/pay_%zz'],
      ['get', '/v1/payments/%E0%A4%A'],
      ['patch', '/v1/payments/pay_%00'],
      ['get', '/v1/payments/pay_%00/received-funds'],
      ['post', '/v1/sandbox/payments/pay_%00/simulate'],
      ['get', '/v1/checkouts/chk_%00'],
      ['delete', '/v1/webhook/wh_%00'],
      ['get', `/v1/webhook/wh_%00/deliveries`],
      ['post', `/v1/webhook/${wh}/deliveries/dlv_%00/retry`],
      ['post', '/v1/webhook/wh_1/test'],
    ] as const)('%s %s', async (method, path) => {
      await refused(() => asMerchant(method, path).send({ amount: 1000, outcome: 'paid' }), 404, 'NOT_FOUND');
    });

    test.each([
      ['get', '/admin/v1/businesses/biz_%00'],
      ['get', '/admin/v1/businesses/%zz'],
      ['post', '/admin/v1/businesses/biz_short/api-keys'],
      ['put', '/admin/v1/businesses/biz_%00/fee-rules/pix'],
      ['delete', '/admin/v1/api-keys/%00'],
      ['delete', `/admin/v1/api-keys/${'k'.repeat(13)}`],
    ] as const)('operator API: %s %s', async (method, path) => {
      await refused(
        () => asOperator(method, path).send({ percent_bps: 100, fixed_centavos: 0 }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('hosted checkout: slugs and session ids without their shape are not found, without an API key', () => {
    test.each(['%00', 'ab', 'Loja-Maiuscula', 'loja--dupla', `${'a'.repeat(65)}`, 'caf%C3%A9'])(
      'GET /c/%s is the not-found page',
      async (slug) => {
        const sentBefore = h.fakes.received.length;
        const started = Date.now();
        const response = await h.http.get(`/c/${slug}`);
        expect(Date.now() - started).toBeLessThan(FAST_MS);
        expect(response.status).toBe(404);
        expect(h.fakes.received.slice(sentBefore)).toEqual([]);
      },
    );

    test('malformed percent-encoding in a slug is the not-found page for the page, NOT_FOUND for its sessions', async () => {
      const page = await h.http.get('/c/%zz');
      expect({ status: page.status, type: page.headers['content-type'] }).toEqual({
        status: 404,
        type: expect.stringMatching(/^text\/html/),
      });
      await refused(() => h.http.post('/c/%E0%A4%A/sessions').send({ method: 'pix' }), 404, 'NOT_FOUND');
    });

    test.each([
      ['post', '/c/%00/sessions'],
      ['get', '/c/loja-valida/sessions/sess_%00'],
      ['get', '/c/%00/sessions/sess_abcdefghijklmnopqrstuvwx'],
    ] as const)('%s %s', async (method, path) => {
      await refused(() => h.http[method](path).send({ method: 'pix' }), 404, 'NOT_FOUND');
    });
  });

  describe('bodies', () => {
    test.each([
      ['an array', '[1,2,3]'],
      ['a string', '"pix"'],
      ['a number', '1000'],
      ['null', 'null'],
    ])('%s at the top level is INVALID_FIELDS, with or without an Idempotency-Key', async (_label, text) => {
      const send = (withKey: boolean) => {
        const req = asMerchant('post', '/v1/payments').set('Content-Type', 'application/json');
        return (withKey ? req.set('Idempotency-Key', newPublicId('idem')) : req).send(text);
      };
      await refused(() => send(false), 422, 'INVALID_FIELDS');
      await refused(() => send(true), 422, 'INVALID_FIELDS');
      await refused(
        () => asOperator('post', '/admin/v1/businesses').set('Content-Type', 'application/json').send(text),
        422,
        'INVALID_FIELDS',
      );
      await refused(
        () => h.http.post('/c/loja-valida/sessions').set('Content-Type', 'application/json').send(text),
        422,
        'INVALID_FIELDS',
      );
    });

    test(`nesting deeper than ${MAX_JSON_DEPTH} levels is INVALID_JSON, with or without an Idempotency-Key`, async () => {
      for (const levels of [MAX_JSON_DEPTH + 1, 1_000, 10_000]) {
        const body = `{"payment_method":"pix","amount":1000,"extra":${nestedJson(levels - 1)}}`;
        const send = (key?: string) => {
          const req = asMerchant('post', '/v1/payments').set('Content-Type', 'application/json');
          return (key ? req.set('Idempotency-Key', key) : req).send(body);
        };
        await refused(() => send(), 400, 'INVALID_JSON');
        await refused(() => send(newPublicId('idem')), 400, 'INVALID_JSON');
        await refused(
          () => asOperator('post', '/admin/v1/businesses').set('Content-Type', 'application/json').send(body),
          400,
          'INVALID_JSON',
        );
      }
    });

    test(`nesting of exactly ${MAX_JSON_DEPTH} levels is accepted (and fingerprinted with a key)`, async () => {
      const body = `{"payment_method":"pix","amount":1000,"extra":${nestedJson(MAX_JSON_DEPTH - 1)}}`;
      const response = await asMerchant('post', '/v1/payments')
        .set('Content-Type', 'application/json')
        .set('Idempotency-Key', newPublicId('idem'))
        .send(body);
      expect(response.status).toBe(201);
    });

    test('a NUL character in any string, key or nesting level is INVALID_FIELDS', async () => {
      const bodies = [
        { payment_method: 'pix', amount: 1000, metadata: '{"a":"\u0000"}' },
        { payment_method: 'pix\u0000', amount: 1000 },
        { payment_method: 'pix', amount: 1000, extra: [{ deep: ['ok', 'não\u0000'] }] },
        { payment_method: 'pix', amount: 1000, 'chave\u0000': 1 },
      ];
      for (const body of bodies) {
        await refused(() => asMerchant('post', '/v1/payments').send(body), 422, 'INVALID_FIELDS');
        await refused(
          () => asMerchant('post', '/v1/payments').set('Idempotency-Key', newPublicId('idem')).send(body),
          422,
          'INVALID_FIELDS',
        );
      }
      await refused(
        () => asOperator('post', '/admin/v1/businesses').send({ name: 'A\u0000B' }),
        422,
        'INVALID_FIELDS',
      );
    });

    test('property: a NUL anywhere in an otherwise valid body is INVALID_FIELDS', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.string(),
          fc.string(),
          fc.constantFrom('metadata', 'extra', 'currency'),
          async (a, b, field) => {
            const body = { payment_method: 'pix', amount: 1000, [field]: `${a}\u0000${b}` };
            await refused(() => asMerchant('post', '/v1/payments').send(body), 422, 'INVALID_FIELDS');
          },
        ),
        { numRuns: 25 },
      );
    });

    test('a NUL character in the query string is INVALID_FIELDS', async () => {
      await refused(
        () => asMerchant('get', `/v1/webhook/${newPublicId('wh')}/deliveries?cursor=a%00b`),
        422,
        'INVALID_FIELDS',
      );
    });

    test('a NUL byte in a header (e.g. the Idempotency-Key) is refused with the error shape', async () => {
      const port = Number(new URL(h.gateway.url).port);
      const body = '{"payment_method":"pix","amount":1000}';
      const response = await rawRequest(
        port,
        `POST /v1/payments HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${apiKey}\r\n` +
          `Idempotency-Key: a\u0000b\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'INVALID_JSON', message: expect.any(String) },
      });
    });

    test('a request without a Host header is refused with the error shape', async () => {
      const port = Number(new URL(h.gateway.url).port);
      const response = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'INVALID_JSON', message: expect.any(String) },
      });
    });

    test.each([
      ['text/plain', '/v1/customers', '{"email":"maria@example.com"}'],
      ['application/x-www-form-urlencoded', '/v1/payments', 'payment_method=pix&amount=1000'],
      ['text/plain', '/admin/v1/businesses', '{"name":"Loja"}'],
      ['text/plain', '/c/loja-valida/sessions', '{"method":"pix"}'],
    ])(
      'a body declared %s (not JSON) on %s is INVALID_JSON, never read as an empty body',
      async (type, path, body) => {
        const headers: Record<string, string> = { 'content-type': type };
        if (path.startsWith('/admin/')) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
        await refused(() => postBytes(path, headers, Buffer.from(body)), 400, 'INVALID_JSON');
      },
    );

    test('a POST without a body (Content-Length: 0, no Content-Type) on a route that takes none is served', async () => {
      h.fakes.on(sendTestWebhook, async () => ({
        event_id: newPublicId('evt'),
        status_code: 200,
        error: null,
      }));
      const response = await asMerchant('post', `/v1/webhook/${newPublicId('wh')}/test`).set(
        'Content-Length',
        '0',
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status_code: 200 });
    });

    test.each(['/v1/payments', '/admin/v1/businesses', '/c/loja-valida', '/healthz'])(
      'OPTIONS %s is NOT_FOUND in the error shape (no route serves it)',
      async (path) => {
        await refused(() => h.http.options(path).set('x-api-key', apiKey), 404, 'NOT_FOUND');
      },
    );

    test('an Idempotency-Key outside printable ASCII is INVALID_FIELDS', async () => {
      await refused(
        () =>
          asMerchant('post', '/v1/payments')
            .set('Idempotency-Key', 'chave com espaço')
            .send({ payment_method: 'pix', amount: 1000 }),
        422,
        'INVALID_FIELDS',
      );
    });

    test('invalid UTF-8 is INVALID_JSON (400), never silently replaced', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"payment_method":"pix","amount":1000,"metadata":"{\\"a\\":\\"'),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('\\"}"}'),
      ]);
      await refused(() => postBytes('/v1/payments', {}, bytes), 400, 'INVALID_JSON');
    });

    test.each([
      ['an unknown Content-Encoding', 'bogus', Buffer.from('{"payment_method":"pix","amount":1000}')],
      ['gzip that is not gzip', 'gzip', Buffer.from('{"payment_method":"pix","amount":1000}')],
      ['deflate that is not deflate', 'deflate', Buffer.from('não é deflate')],
      ['truncated gzip', 'gzip', gzipSync('{"payment_method":"pix","amount":1000}').subarray(0, 12)],
    ])('%s is INVALID_JSON (400)', async (_label, encoding, bytes) => {
      await refused(
        () => postBytes('/v1/payments', { 'content-encoding': encoding }, bytes),
        400,
        'INVALID_JSON',
      );
    });

    test('a gzip bomb is PAYLOAD_TOO_LARGE: the 64 KiB limit counts the inflated body', async () => {
      const bomb = gzipSync(`{"payment_method":"pix","amount":1000,"extra":"${'a'.repeat(5_000_000)}"}`);
      await refused(
        () => postBytes('/v1/payments', { 'content-encoding': 'gzip' }, bomb),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });

    test('a well-formed gzip body is accepted', async () => {
      const response = await postBytes(
        '/v1/payments',
        { 'content-encoding': 'gzip' },
        gzipSync('{"payment_method":"pix","amount":1000}'),
      );
      expect(response.status).toBe(201);
    });

    test('an unsupported charset is INVALID_JSON (400)', async () => {
      await refused(
        () =>
          asMerchant('post', '/v1/payments')
            .set('Content-Type', 'application/json; charset=latin1')
            .send('{"payment_method":"pix","amount":1000}'),
        400,
        'INVALID_JSON',
      );
    });
  });

  describe('free texts over their limit are INVALID_FIELDS', () => {
    const over = (kind: keyof typeof TEXT_LIMITS) => 'a'.repeat(TEXT_LIMITS[kind] + 1);
    const url = (length: number) =>
      `https://loja.example.com/${'a'.repeat(length - 'https://loja.example.com/'.length)}`;
    const checkout = {
      product_id: newPublicId('prod'),
      return_url: 'https://a.example.com',
      cancel_url: 'https://a.example.com',
    };

    test.each([
      ['checkout title', '/v1/checkouts', { ...checkout, title: over('title') }],
      ['checkout slug', '/v1/checkouts', { ...checkout, slug: over('slug') }],
      ['checkout return_url', '/v1/checkouts', { ...checkout, return_url: url(TEXT_LIMITS.url + 1) }],
      ['checkout metadata', '/v1/checkouts', { ...checkout, metadata: JSON.stringify(over('metadata')) }],
      [
        'payment metadata',
        '/v1/payments',
        { payment_method: 'pix', amount: 1000, metadata: JSON.stringify(over('metadata')) },
      ],
      ['customer email', '/v1/customers', { email: `${over('email')}@x.com` }],
      ['customer phone_number', '/v1/customers', { phone_number: over('phone_number') }],
      ['customer document_number', '/v1/customers', { document_number: over('document_number') }],
      ['webhook url', '/v1/webhook', { url: url(TEXT_LIMITS.url + 1), events: ['payment.confirmed'] }],
    ])('%s', async (_label, path, body) => {
      await refused(() => asMerchant('post', path).send(body), 422, 'INVALID_FIELDS');
    });

    test.each([
      ['business name', '/admin/v1/businesses', { name: over('name') }],
      [
        'product name',
        `/admin/v1/businesses/${newPublicId('biz')}/products`,
        { name: over('name'), price: 1000 },
      ],
      [
        'product description',
        `/admin/v1/businesses/${newPublicId('biz')}/products`,
        { name: 'Curso', price: 1000, description: over('description') },
      ],
    ])('operator API: %s', async (_label, path, body) => {
      await refused(() => asOperator('post', path).send(body), 422, 'INVALID_FIELDS');
    });

    test('texts exactly at their limit pass the gateway', async () => {
      h.fakes.on(createCheckout, async (command) => aCheckoutCreatedFor(command));
      const response = await asMerchant('post', '/v1/checkouts').send({
        ...checkout,
        title: 'a'.repeat(TEXT_LIMITS.title),
        return_url: url(TEXT_LIMITS.url),
        metadata: JSON.stringify('a'.repeat(TEXT_LIMITS.metadata - 2)),
      });
      expect(response.status).toBe(201);
      expect(h.fakes.receivedOf(createCheckout).at(-1)).toMatchObject({
        title: 'a'.repeat(TEXT_LIMITS.title),
      });
    });
  });

  describe(`amounts: ${MIN_AMOUNT_CENTAVOS} to ${MAX_AMOUNT_CENTAVOS} centavos on every route`, () => {
    const crypto = { currency: 'USDC', network: 'solana' };
    const pay = newPublicId('pay');

    test.each([
      ['PIX create of 10^12', 'post', '/v1/payments', { payment_method: 'pix', amount: 10 ** 12 }],
      [
        'crypto create of 10^15',
        'post',
        '/v1/payments',
        { payment_method: 'crypto', amount: 10 ** 15, crypto },
      ],
      ['crypto create of 99', 'post', '/v1/payments', { payment_method: 'crypto', amount: 99, crypto }],
      ['PIX create beyond 2^53', 'post', '/v1/payments', { payment_method: 'pix', amount: 2 ** 60 }],
      ['PATCH to 10^12', 'patch', `/v1/payments/${pay}`, { amount: 10 ** 12 }],
      [
        'simulated payment of 10^12',
        'post',
        `/v1/sandbox/payments/${pay}/simulate`,
        { outcome: 'paid', amount: 10 ** 12 },
      ],
    ] as const)('%s is INVALID_AMOUNT', async (_label, method, path, body) => {
      const response = await refused(() => asMerchant(method, path).send(body), 422, 'INVALID_AMOUNT');
      expect((response.body as { error: { message: string } }).error.message).toContain(
        'R$ 9.999.999.999,99',
      );
    });

    test('a product price of 10^12 is INVALID_AMOUNT', async () => {
      await refused(
        () =>
          asOperator('post', `/admin/v1/businesses/${newPublicId('biz')}/products`).send({
            name: 'Curso',
            price: 10 ** 12,
          }),
        422,
        'INVALID_AMOUNT',
      );
      expect(h.fakes.receivedOf(createProduct)).toEqual([]);
    });

    test('property: PIX and crypto amounts outside the bounds are refused, inside them sent', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.integer({ min: -(10 ** 9), max: MIN_AMOUNT_CENTAVOS - 1 }),
            fc.integer({ min: MAX_AMOUNT_CENTAVOS + 1, max: Number.MAX_SAFE_INTEGER }),
            fc.integer({ min: MIN_AMOUNT_CENTAVOS, max: MAX_AMOUNT_CENTAVOS }),
          ),
          fc.constantFrom('pix', 'crypto'),
          async (amount, method) => {
            const body =
              method === 'pix'
                ? { payment_method: 'pix', amount }
                : { payment_method: 'crypto', amount, crypto };
            const inside = amount >= MIN_AMOUNT_CENTAVOS && amount <= MAX_AMOUNT_CENTAVOS;
            if (!inside) {
              await refused(() => asMerchant('post', '/v1/payments').send(body), 422, 'INVALID_AMOUNT');
              return;
            }
            const response = await asMerchant('post', '/v1/payments').send(body);
            expect(response.status).toBe(201);
            expect(h.fakes.receivedOf(createPayment).at(-1)).toMatchObject({ amount_centavos: amount });
          },
        ),
        { numRuns: 30 },
      );
    });

    test(`the largest amount, ${MAX_AMOUNT_CENTAVOS}, is sent for PIX and crypto`, async () => {
      for (const body of [
        { payment_method: 'pix', amount: MAX_AMOUNT_CENTAVOS },
        { payment_method: 'crypto', amount: MAX_AMOUNT_CENTAVOS, crypto },
      ]) {
        const response = await asMerchant('post', '/v1/payments').send(body);
        expect(response.status).toBe(201);
      }
    });
  });

  test('32 malformed requests at once are all answered fast, and a valid request right after is too', async () => {
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        i % 2 === 0 ? asMerchant('get', '/v1/payments/pay_%00') : h.http.get('/c/%00'),
      ),
    );
    expect(responses.every((response) => response.status === 404)).toBe(true);
    expect(Date.now() - started).toBeLessThan(FAST_MS);
    h.fakes.on(createCustomer, async (command) =>
      aCustomer({ business_id: command.business_id, email: command.email, ip: command.ip }),
    );
    const after = Date.now();
    expect((await asMerchant('post', '/v1/customers').send({ email: 'ana@example.com' })).status).toBe(201);
    expect(Date.now() - after).toBeLessThan(FAST_MS);
  });
});
