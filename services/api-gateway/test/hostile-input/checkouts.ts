import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  containsNul,
  expectError,
  expectNotFoundPage,
  FAST_MS,
  hostileBodyTests,
  hostileIds,
  hostileQueryTests,
  hostileString,
  otherBusinessTests,
  pathIdTests,
  percentEncoded,
  unservedMethodTests,
  withJson,
  type HostileStack,
} from '../support/hostile-input';

/** Hostile input on the checkout routes: checkouts, the hosted checkout (/c/...) and customers. */
export function checkoutRoutes(h: HostileStack): void {
  const { a, hit, asA } = h;

  describe('path ids that cannot exist are NOT_FOUND at once, on every route', () => {
    pathIdTests(h, [
      ['GET', (id) => `/v1/checkouts/${id}`, undefined],
      ['GET', (id) => `/v1/checkouts/${id}/sessions`, undefined],
      ['GET', (id) => `/v1/customers/${id}`, undefined],
    ]);
  });

  describe('the hosted checkout (/c/...) refuses hostile slugs and session ids, with or without an API key', () => {
    const slugs: Array<[string, string]> = [
      ['a NUL byte', '%00'],
      ['a truncated percent-encoding', '%E0%A4%A'],
      ['a non-hex percent-encoding', '%ZZ'],
      ['a trailing percent sign', 'x%'],
      ['invalid UTF-8', percentEncoded(Buffer.from([0xff, 0xfe]))],
      ['5,000 characters', 'a'.repeat(5000)],
      ['a path traversal', '..%2F..%2Fpackage.json'],
      ['an encoded CRLF', 'loja%0d%0aSet-Cookie:%20x=1'],
    ];

    test.each(slugs)('GET /c/{slug} with %s is the not-found page', async (_what, slug) => {
      expectNotFoundPage(await hit('GET', `/c/${slug}`));
      expectNotFoundPage(await hit('GET', `/c/${slug}`, { headers: asA() }));
    });

    test.each(slugs)('POST /c/{slug}/sessions with %s is NOT_FOUND', async (_what, slug) => {
      expectError(await hit('POST', `/c/${slug}/sessions`, withJson({}, '{"method":"pix"}')), 'NOT_FOUND');
    });

    test.each(hostileIds)('GET /c/{slug}/sessions/{id} with %s is NOT_FOUND', async (_what, id) => {
      expectError(await hit('GET', `/c/${a.slug}/sessions/${id.replace('pay_', 'sess_')}`), 'NOT_FOUND');
      expectError(await hit('GET', `/c/%00/sessions/${a.sessionId}`), 'NOT_FOUND');
    });

    test.each(slugs)('GET /c/assets/{name} with %s is NOT_FOUND', async (_what, name) => {
      expectError(await hit('GET', `/c/assets/${name}`), 'NOT_FOUND');
    });

    test('nothing was parked', h.nothingParked);
  });

  describe('hostile bodies are clean 4xx on every route that takes a body', () => {
    hostileBodyTests(h, [
      [
        'POST',
        '/v1/checkouts (Idempotency-Key)',
        () => '/v1/checkouts',
        () => asA({ 'idempotency-key': randomUUID() }),
      ],
      ['POST', '/v1/customers', () => '/v1/customers', () => asA()],
      ['POST', '/c/{slug}/sessions', () => `/c/${a.slug}/sessions`, () => ({})],
    ]);

    test('a body sent as text/plain to /v1/customers is refused instead of creating an empty customer', async () => {
      const answer = await hit('POST', '/v1/customers', {
        headers: asA({ 'content-type': 'text/plain' }),
        body: '{"email":"maria@example.com"}',
      });
      expectError(answer, 'INVALID_JSON', 'INVALID_FIELDS');
    });

    test('__proto__ and constructor keys pollute nothing', async () => {
      const polluted = await hit(
        'POST',
        '/v1/customers',
        withJson(
          asA(),
          '{"__proto__":{"email":"x","isAdmin":true},"constructor":{"prototype":{"polluted":true}}}',
        ),
      );
      expect({ status: polluted.status < 500, fast: polluted.ms < FAST_MS }).toEqual({
        status: true,
        fast: true,
      });
      if (polluted.status >= 400) expectError(polluted, 'INVALID_FIELDS');
      else expect(polluted.json.email).toBeNull();
      // Nothing leaked into later requests.
      const after = await hit('POST', '/v1/customers', withJson(asA(), '{}'));
      expect({ status: after.status, email: after.json?.email, polluted: after.json?.polluted }).toEqual({
        status: 201,
        email: null,
        polluted: undefined,
      });
    });

    test('nothing was parked', h.nothingParked);
  });

  describe('free texts: any unicode within the limits is kept as sent; over the limits is INVALID_FIELDS', () => {
    const unicodeTitle = 'Caneca 😀🇧🇷 \u202Eodacifirev\u202C שלום مرحبا e\u0301\u0327\u0308 \uFEFF𝔘𝔫𝔦';
    const checkoutBody = (overrides: Record<string, unknown>) =>
      JSON.stringify({
        product_id: a.productId,
        return_url: 'https://loja.example/obrigado',
        cancel_url: 'https://loja.example/carrinho',
        ...overrides,
      });
    const longUrl = (length: number) => {
      const base = 'https://loja.example/';
      return base + 'a'.repeat(length - base.length);
    };
    /** A valid address of exactly `length` characters (64-character local part, labels of at most 63). */
    const emailOf = (length: number) => {
      const local = 'a'.repeat(64);
      let domain = 'example.com';
      while (local.length + 1 + domain.length < length) {
        const room = length - (local.length + 1 + domain.length) - 1;
        domain = `${'b'.repeat(Math.min(63, Math.max(1, room)))}.${domain}`;
      }
      return `${local}@${domain}`;
    };

    test('a checkout titled with emoji, RTL overrides and combining marks reads back the same, and its page renders', async () => {
      const created = await hit(
        'POST',
        '/v1/checkouts',
        withJson(asA(), checkoutBody({ title: unicodeTitle })),
      );
      expect(created.status).toBe(201);
      const read = await hit('GET', `/v1/checkouts/${created.json.checkout_id}`, { headers: asA() });
      expect(read.json.title).toBe(unicodeTitle);
      const page = await hit('GET', `/c/${encodeURIComponent(created.json.slug)}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>alert');
    });

    test('a title of 200 characters is accepted; 201 is INVALID_FIELDS', async () => {
      expect(
        (await hit('POST', '/v1/checkouts', withJson(asA(), checkoutBody({ title: 't'.repeat(200) }))))
          .status,
      ).toBe(201);
      expectError(
        await hit('POST', '/v1/checkouts', withJson(asA(), checkoutBody({ title: 't'.repeat(201) }))),
        'INVALID_FIELDS',
      );
    });

    test('urls of 2048 characters are accepted; 2049 is INVALID_FIELDS (checkout and webhook)', async () => {
      expect(
        (
          await hit(
            'POST',
            '/v1/checkouts',
            withJson(asA(), checkoutBody({ return_url: longUrl(2048), cancel_url: longUrl(2048) })),
          )
        ).status,
      ).toBe(201);
      for (const field of ['return_url', 'cancel_url']) {
        expectError(
          await hit('POST', '/v1/checkouts', withJson(asA(), checkoutBody({ [field]: longUrl(2049) }))),
          'INVALID_FIELDS',
        );
      }
      expectError(
        await hit(
          'POST',
          '/v1/webhook',
          withJson(asA(), JSON.stringify({ url: longUrl(2049), events: ['payment.confirmed'] })),
        ),
        'INVALID_FIELDS',
      );
    });

    test('an email of 254 characters is accepted; 255 is INVALID_FIELDS', async () => {
      expect(emailOf(254)).toHaveLength(254);
      const accepted = await hit(
        'POST',
        '/v1/customers',
        withJson(asA(), JSON.stringify({ email: emailOf(254) })),
      );
      expect({ status: accepted.status, email: accepted.json?.email }).toEqual({
        status: 201,
        email: emailOf(254),
      });
      expectError(
        await hit('POST', '/v1/customers', withJson(asA(), JSON.stringify({ email: emailOf(255) }))),
        'INVALID_FIELDS',
      );
    });

    test('markup in a title is shown as text on the hosted page, never as markup', async () => {
      const title = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
      const created = await hit('POST', '/v1/checkouts', withJson(asA(), checkoutBody({ title })));
      expect(created.status).toBe(201);
      const page = await hit('GET', `/c/${encodeURIComponent(created.json.slug)}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>alert(1)');
      expect(page.text).not.toContain('<img src=x');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    test('urls that are not http(s) are INVALID_FIELDS', async () => {
      for (const url of [
        'javascript:alert(1)',
        'data:text/html,<b>x</b>',
        'file:///etc/passwd',
        '//loja.example',
        'https://',
      ]) {
        expectError(
          await hit('POST', '/v1/checkouts', withJson(asA(), checkoutBody({ return_url: url }))),
          'INVALID_FIELDS',
        );
        expectError(
          await hit(
            'POST',
            '/v1/webhook',
            withJson(asA(), JSON.stringify({ url, events: ['payment.confirmed'] })),
          ),
          'INVALID_FIELDS',
        );
      }
    });

    test('a lone surrogate, a BOM and control characters never reach a 5xx', async () => {
      for (const text of ['\\ud800', '\\udfff\\ud800', '\\ufeff', '\\u001b[31m', '\\u2028\\u2029']) {
        const answer = await hit(
          'POST',
          '/v1/checkouts',
          withJson(
            asA(),
            `{"product_id":"${a.productId}","return_url":"https://a.example","cancel_url":"https://a.example","title":"${text}"}`,
          ),
        );
        expect({ text, status: answer.status < 500, fast: answer.ms < FAST_MS }).toEqual({
          text,
          status: true,
          fast: true,
        });
        if (answer.status >= 400) expectError(answer, 'INVALID_FIELDS');
      }
    });

    test('nothing was parked', h.nothingParked);
  });

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, [
      ['/v1/checkouts', () => '/v1/checkouts', ['POST'], () => asA()],
      ['/v1/checkouts/{id}', () => `/v1/checkouts/${a.checkoutId}`, ['GET', 'PATCH'], () => asA()],
      ['/v1/products', () => '/v1/products', ['GET', 'POST'], () => asA()],
      ['/v1/products/{id}', () => `/v1/products/${a.productId}`, ['PATCH'], () => asA()],
      ['/v1/checkouts/{id}/sessions', () => `/v1/checkouts/${a.checkoutId}/sessions`, ['GET'], () => asA()],
      ['/v1/customers', () => '/v1/customers', ['POST'], () => asA()],
      ['/c/{slug}', () => `/c/${a.slug}`, ['GET'], () => ({})],
      ['/c/{slug}/sessions', () => `/c/${a.slug}/sessions`, ['POST'], () => ({})],
      ['/c/{slug}/sessions/{id}', () => `/c/${a.slug}/sessions/${a.sessionId}`, ['GET'], () => ({})],
      ['/c/assets/checkout.css', () => '/c/assets/checkout.css', ['GET'], () => ({})],
    ]);
  });

  describe("another business's resources: NOT_FOUND on reads, FORBIDDEN on DELETE webhook", () => {
    otherBusinessTests(
      h,
      [
        ['GET', 'its checkout', () => `/v1/checkouts/${a.checkoutId}`, undefined],
        ['GET', "its checkout's sessions", () => `/v1/checkouts/${a.checkoutId}/sessions`, undefined],
      ],
      [['checkouts', 'checkout_id', () => [a.checkoutId]]],
    );
  });

  describe('hostile headers, credentials and query strings', () => {
    hostileQueryTests(h, [
      ['a NUL', () => `/v1/checkouts/${a.checkoutId}/sessions?limit=%00`],
      ['a malformed cursor', () => `/v1/checkouts/${a.checkoutId}/sessions?starting_after=%E0%A4%A`],
      ['a huge limit', () => `/v1/checkouts/${a.checkoutId}/sessions?limit=${'9'.repeat(400)}`],
    ]);
  });

  describe('property-based: random hostile strings and values', () => {
    test('any JSON value in any customer or checkout field never reaches a 5xx, and a NUL anywhere is INVALID_FIELDS', async () => {
      const value = fc.oneof(hostileString, fc.jsonValue({ maxDepth: 3 }));
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(
            'email',
            'phone_number',
            'document_number',
            'metadata',
            'title',
            'slug',
            'return_url',
          ),
          value,
          async (field, fieldValue) => {
            const route = ['title', 'slug', 'return_url'].includes(field) ? '/v1/checkouts' : '/v1/customers';
            const body =
              route === '/v1/checkouts'
                ? {
                    product_id: a.productId,
                    return_url: 'https://a.example',
                    cancel_url: 'https://a.example',
                    [field]: fieldValue,
                  }
                : { [field]: fieldValue };
            const answer = await hit(
              'POST',
              route,
              withJson(asA({ 'idempotency-key': randomUUID() }), JSON.stringify(body)),
            );
            if (containsNul(fieldValue)) {
              expectError(answer, 'INVALID_FIELDS');
            } else if (answer.status >= 400) {
              expectError(answer, 'INVALID_FIELDS', 'MISSING_FIELDS', 'NOT_FOUND');
            } else {
              expect({ status: answer.status, fast: answer.ms < FAST_MS }).toEqual({
                status: 201,
                fast: true,
              });
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  });
}
