import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  containsNul,
  expectError,
  expectNotFoundPage,
  FAST_MS,
  hostileBodyTests,
  hostileQueryTests,
  hostileString,
  nestedObject,
  otherBusinessTests,
  pathIdTests,
  percentEncoded,
  unservedMethodTests,
  withJson,
  type HostileStack,
} from '../support/hostile-input';

/** Hostile input on the payment routes: payments, the sandbox's simulation, cancels, refunds and received funds. */
export function paymentRoutes(h: HostileStack): void {
  const { a, hit, asA, asAdmin } = h;

  describe('path ids that cannot exist are NOT_FOUND at once, on every route', () => {
    pathIdTests(h, [
      ['GET', (id) => `/v1/payments/${id}`, undefined],
      ['PATCH', (id) => `/v1/payments/${id}`, '{"metadata":"{}"}'],
      ['GET', (id) => `/v1/payments/${id}/received-funds`, undefined],
      ['POST', (id) => `/v1/sandbox/payments/${id}/simulate`, '{"outcome":"paid"}'],
      ['POST', (id) => `/v1/payments/${id}/cancel`, undefined],
      ['POST', (id) => `/v1/payments/${id}/refunds`, '{}'],
      ['GET', (id) => `/v1/payments/${id}/refunds`, undefined],
      ['GET', (id) => `/v1/refunds/${id}`, undefined],
    ]);

    test('nothing was parked', h.nothingParked);
  });

  describe('hostile bodies are clean 4xx on every route that takes a body', () => {
    hostileBodyTests(h, [
      ['POST', '/v1/payments', () => '/v1/payments', () => asA()],
      [
        'POST',
        '/v1/payments (Idempotency-Key)',
        () => '/v1/payments',
        () => asA({ 'idempotency-key': randomUUID() }),
      ],
      ['PATCH', '/v1/payments/{id}', () => `/v1/payments/${a.pixId}`, () => asA()],
      [
        'POST',
        '/v1/sandbox/payments/{id}/simulate',
        () => `/v1/sandbox/payments/${a.pixId}/simulate`,
        () => asA(),
      ],
      [
        'POST',
        '/v1/payments/{id}/refunds (Idempotency-Key)',
        () => `/v1/payments/${a.pixId}/refunds`,
        () => asA({ 'idempotency-key': randomUUID() }),
      ],
    ]);

    test('a duplicated key cannot smuggle a second amount past validation', async () => {
      const answer = await hit(
        'POST',
        '/v1/payments',
        withJson(
          asA({ 'idempotency-key': randomUUID() }),
          '{"payment_method":"pix","amount":1000,"amount":1000000000000000}',
        ),
      );
      expectError(answer, 'INVALID_AMOUNT');
    });

    test('a number of 5,000 digits is INVALID_AMOUNT, not a crash', async () => {
      const answer = await hit(
        'POST',
        '/v1/payments',
        withJson(asA(), `{"payment_method":"pix","amount":1${'0'.repeat(5000)}}`),
      );
      expectError(answer, 'INVALID_AMOUNT');
    });

    test('an object of 5,000 keys is refused fast', async () => {
      const keys = Array.from({ length: 5000 }, (_, n) => `"k${n}":0`).join(',');
      expectError(await hit('POST', '/v1/payments', withJson(asA(), `{${keys}}`)), 'MISSING_FIELDS');
    });

    test('a form-encoded payment is refused', async () => {
      const answer = await hit('POST', '/v1/payments', {
        headers: asA({ 'content-type': 'application/x-www-form-urlencoded' }),
        body: 'payment_method=pix&amount=1000',
      });
      expectError(answer, 'INVALID_JSON', 'MISSING_FIELDS');
    });

    test('hostile Idempotency-Keys are refused before anything is created', async () => {
      for (const key of ['k'.repeat(256), 'chave-\xe9-latin1', 'a b c']) {
        const answer = await hit(
          'POST',
          '/v1/payments',
          withJson(asA({ 'idempotency-key': key }), '{"payment_method":"pix","amount":1000}'),
        );
        expectError(answer, 'INVALID_FIELDS');
      }
    });

    test('the same deep body sent twice with one Idempotency-Key is refused twice the same way', async () => {
      const key = randomUUID();
      for (let n = 0; n < 2; n += 1) {
        expectError(
          await hit('POST', '/v1/payments', withJson(asA({ 'idempotency-key': key }), nestedObject(10_000))),
          'INVALID_JSON',
        );
      }
      // The key was not spent on the refusal: a real body under it creates the payment.
      const created = await hit(
        'POST',
        '/v1/payments',
        withJson(asA({ 'idempotency-key': key }), '{"payment_method":"pix","amount":1000}'),
      );
      expect(created.status).toBe(201);
    });
  });

  describe('amounts outside 100..999999999999 centavos are INVALID_AMOUNT for every rail, route and method', () => {
    const badAmounts: Array<[string, string]> = [
      ['10^12', '1000000000000'],
      ['10^15', '1000000000000000'],
      ['2^53 + 1', '9007199254740993'],
      ['1e400 (not finite)', '1e400'],
      ['-100', '-100'],
      ['0', '0'],
      ['-0', '-0'],
      ['99', '99'],
      ['100.5', '100.5'],
      ['"1000" (a string)', '"1000"'],
      ['null', 'null'],
      ['true', 'true'],
      ['[1000]', '[1000]'],
      ['{"value":1000}', '{"value":1000}'],
    ];

    const createBody = (method: 'pix' | 'crypto', amount: string) =>
      `{"payment_method":"${method}","amount":${amount}${method === 'crypto' ? ',"crypto":{"currency":"usdc","network":"solana"}' : ''}}`;

    test.each(badAmounts)('create (pix and crypto) with %s', async (_what, amount) => {
      for (const method of ['pix', 'crypto'] as const) {
        expectError(
          await hit('POST', '/v1/payments', withJson(asA(), createBody(method, amount))),
          'INVALID_AMOUNT',
        );
        expectError(
          await hit(
            'POST',
            '/v1/payments',
            withJson(asA({ 'idempotency-key': randomUUID() }), createBody(method, amount)),
          ),
          'INVALID_AMOUNT',
        );
      }
    });

    test.each(badAmounts)('PATCH (pix and crypto) with %s', async (_what, amount) => {
      for (const id of [a.pixId, a.cryptoId]) {
        expectError(
          await hit('PATCH', `/v1/payments/${id}`, withJson(asA(), `{"amount":${amount}}`)),
          'INVALID_AMOUNT',
        );
      }
    });

    test.each(badAmounts.slice(0, 4))(
      'a product priced %s (admin) and a simulated amount of %s',
      async (_what, amount) => {
        expectError(
          await hit(
            'POST',
            `/admin/v1/businesses/${a.businessId}/products`,
            withJson(asAdmin(), `{"name":"Caneca","price":${amount}}`),
          ),
          'INVALID_AMOUNT',
        );
        expectError(
          await hit(
            'POST',
            `/v1/sandbox/payments/${a.pixId}/simulate`,
            withJson(asA(), `{"outcome":"paid","amount":${amount}}`),
          ),
          'INVALID_AMOUNT',
        );
      },
    );

    test('the largest amount, 999999999999 centavos, is accepted on both rails and by PATCH', async () => {
      for (const method of ['pix', 'crypto'] as const) {
        const created = await hit(
          'POST',
          '/v1/payments',
          withJson(asA(), createBody(method, '999999999999')),
        );
        expect({ method, status: created.status, amount: created.json?.amount }).toEqual({
          method,
          status: 201,
          amount: 9999999999.99,
        });
        const patched = await hit(
          'PATCH',
          `/v1/payments/${created.json.payment_id}`,
          withJson(asA(), '{"amount":999999999998}'),
        );
        expect({ method, status: patched.status }).toEqual({ method, status: 200 });
      }
    });

    test('simulating a paid crypto payment larger than the test wallet holds is INVALID_AMOUNT, never a retryable 503', async () => {
      const created = await hit('POST', '/v1/payments', withJson(asA(), createBody('crypto', '10000000000')));
      expect(created.status).toBe(201);
      expectError(
        await hit(
          'POST',
          `/v1/sandbox/payments/${created.json.payment_id}/simulate`,
          withJson(asA(), '{"outcome":"paid"}'),
        ),
        'INVALID_AMOUNT',
      );
    });

    test('the payments refused above were left untouched', async () => {
      for (const id of [a.pixId, a.cryptoId]) {
        const read = await hit('GET', `/v1/payments/${id}`, { headers: asA() });
        expect({ status: read.status, amount: read.json?.amount_brl }).toEqual({ status: 200, amount: 10 });
      }
    });

    test('nothing was parked', h.nothingParked);
  });

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, [
      ['/v1/payments', () => '/v1/payments', ['POST'], () => asA()],
      ['/v1/payments/{id}', () => `/v1/payments/${a.pixId}`, ['GET', 'PATCH'], () => asA()],
      [
        '/v1/payments/{id}/received-funds',
        () => `/v1/payments/${a.pixId}/received-funds`,
        ['GET'],
        () => asA(),
      ],
      [
        '/v1/sandbox/payments/{id}/simulate',
        () => `/v1/sandbox/payments/${a.pixId}/simulate`,
        ['POST'],
        () => asA(),
      ],
      ['/v1/payments/{id}/cancel', () => `/v1/payments/${a.pixId}/cancel`, ['POST'], () => asA()],
      ['/v1/payments/{id}/refunds', () => `/v1/payments/${a.pixId}/refunds`, ['GET', 'POST'], () => asA()],
      ['/v1/refunds/{id}', () => '/v1/refunds/ref_abcdefghijklmnopqrstuvwx', ['GET'], () => asA()],
    ]);
  });

  describe("another business's resources: NOT_FOUND on reads, FORBIDDEN on DELETE webhook", () => {
    otherBusinessTests(
      h,
      [
        ['GET', 'its payment', () => `/v1/payments/${a.pixId}`, undefined],
        ['GET', 'its received funds', () => `/v1/payments/${a.cryptoId}/received-funds`, undefined],
        ['PATCH', 'its payment', () => `/v1/payments/${a.pixId}`, '{"amount":5000}'],
        [
          'POST',
          'a simulation of its payment',
          () => `/v1/sandbox/payments/${a.pixId}/simulate`,
          '{"outcome":"paid"}',
        ],
        ['POST', 'a cancel of its payment', () => `/v1/payments/${a.pixId}/cancel`, undefined],
        ['POST', 'a refund of its payment', () => `/v1/payments/${a.pixId}/refunds`, '{"amount":100}'],
        ['GET', "its payment's refunds", () => `/v1/payments/${a.pixId}/refunds`, undefined],
      ],
      [['payments', 'payment_id', () => [a.pixId, a.cryptoId]]],
    );
  });

  describe('hostile headers, credentials and query strings', () => {
    hostileQueryTests(h, [
      ['a NUL in an unknown parameter', () => `/v1/payments/${a.pixId}?x=%00`],
      ['a limit array', () => `/v1/payments/${a.pixId}/received-funds?limit[]=1`],
      ['a repeated limit', () => `/v1/payments/${a.pixId}/received-funds?limit=1&limit=2`],
      ['a NUL in a list filter', () => '/v1/payments?created_gte=%00'],
      ['a filter array', () => '/v1/payments?status[]=paid'],
      ['a nested filter', () => '/v1/payments?method[a][b][c]=pix'],
      ['a date past any calendar', () => `/v1/payments?created_lt=${'9'.repeat(40)}-01-01`],
      ['a 5,000-character cursor', () => `/v1/payments?starting_after=pay_${'a'.repeat(5000)}`],
    ]);

    test('a malformed percent-encoding in an ignored query parameter does not break the read', async () => {
      const answer = await hit('GET', `/v1/payments/${a.pixId}?%E0%A4%A=%ZZ`, { headers: asA() });
      expect({ status: answer.status, fast: answer.ms < FAST_MS }).toEqual({ status: 200, fast: true });
    });
  });

  describe('property-based: random hostile strings and values', () => {
    test('any string as a payment id is NOT_FOUND in under a second', async () => {
      await fc.assert(
        fc.asyncProperty(hostileString, async (text) => {
          const answer = await hit('GET', `/v1/payments/${percentEncoded(Buffer.from(text, 'utf8'))}`, {
            headers: asA(),
          });
          expectError(answer, 'NOT_FOUND');
        }),
        { numRuns: 60 },
      );
    });

    test('any bytes as a payment id or a slug are refused in under a second', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), async (bytes) => {
          const id = percentEncoded(Buffer.from(bytes));
          expectError(
            await hit('PATCH', `/v1/payments/pay_${id}`, withJson(asA(), '{"amount":1000}')),
            'NOT_FOUND',
          );
          expectNotFoundPage(await hit('GET', `/c/${id}`));
        }),
        { numRuns: 40 },
      );
    });

    test('any JSON document as a payment body never reaches a 5xx; anything but an object is INVALID_FIELDS', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (document) => {
          const answer = await hit(
            'POST',
            '/v1/payments',
            withJson(asA({ 'idempotency-key': randomUUID() }), JSON.stringify(document)),
          );
          if (
            typeof document !== 'object' ||
            document === null ||
            Array.isArray(document) ||
            containsNul(document)
          ) {
            expectError(answer, 'INVALID_FIELDS');
          } else {
            expectError(
              answer,
              'MISSING_FIELDS',
              'INVALID_FIELDS',
              'INVALID_AMOUNT',
              'UNSUPPORTED_PAYMENT_METHOD',
            );
          }
        }),
        { numRuns: 60 },
      );
    });

    test('nothing was parked', h.nothingParked);
  });
}
