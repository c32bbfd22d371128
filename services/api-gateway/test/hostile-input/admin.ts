import type { OutgoingHttpHeaders } from 'node:http';
import {
  expectError,
  hostileBodyTests,
  hostileIds,
  unservedMethodTests,
  withJson,
  type ServedRoute,
  type HostileStack,
} from '../support/hostile-input';

/** Hostile input on the operator's routes (/admin/v1/...). */
export function operatorRoutes(h: HostileStack): void {
  const { a, hit, asAdmin } = h;

  /** Every admin route with the methods it serves. */
  const adminRoutes: ServedRoute[] = [
    ['/admin/v1/businesses', () => '/admin/v1/businesses', ['POST', 'GET'], () => asAdmin()],
    ['/admin/v1/businesses/{id}', () => `/admin/v1/businesses/${a.businessId}`, ['GET'], () => asAdmin()],
    [
      '/admin/v1/businesses/{id}/api-keys',
      () => `/admin/v1/businesses/${a.businessId}/api-keys`,
      ['POST'],
      () => asAdmin(),
    ],
    [
      '/admin/v1/businesses/{id}/fee-rules/pix',
      () => `/admin/v1/businesses/${a.businessId}/fee-rules/pix`,
      ['PUT'],
      () => asAdmin(),
    ],
    [
      '/admin/v1/businesses/{id}/products',
      () => `/admin/v1/businesses/${a.businessId}/products`,
      ['POST'],
      () => asAdmin(),
    ],
    ['/admin/v1/api-keys/{prefix}', () => `/admin/v1/api-keys/${a.keyPrefix}`, ['DELETE'], () => asAdmin()],
    [
      '/admin/v1/api-keys/{prefix}/roll',
      () => `/admin/v1/api-keys/${a.keyPrefix}/roll`,
      ['POST'],
      () => asAdmin(),
    ],
    [
      '/admin/v1/received-funds/{id}/assign',
      () => `/admin/v1/received-funds/fund_${'n'.repeat(24)}/assign`,
      ['POST'],
      () => asAdmin(),
    ],
    [
      '/admin/v1/received-funds/{id}/return',
      () => `/admin/v1/received-funds/fund_${'n'.repeat(24)}/return`,
      ['POST'],
      () => asAdmin(),
    ],
    ['/admin/v1/reconciliations', () => '/admin/v1/reconciliations', ['GET', 'POST'], () => asAdmin()],
    ['/admin/v1/adjustments', () => '/admin/v1/adjustments', ['GET', 'POST'], () => asAdmin()],
  ];

  describe('path ids that cannot exist are NOT_FOUND at once, on every route', () => {
    test('the admin API refuses the same ids with NOT_FOUND', async () => {
      for (const [, id] of hostileIds) {
        expectError(await hit('GET', `/admin/v1/businesses/${id}`, { headers: asAdmin() }), 'NOT_FOUND');
        expectError(await hit('DELETE', `/admin/v1/api-keys/${id}`, { headers: asAdmin() }), 'NOT_FOUND');
        expectError(await hit('POST', `/admin/v1/api-keys/${id}/roll`, { headers: asAdmin() }), 'NOT_FOUND');
        expectError(
          await hit('POST', `/admin/v1/businesses/${id}/api-keys`, { headers: asAdmin() }),
          'NOT_FOUND',
        );
        expectError(
          await hit('POST', `/admin/v1/received-funds/${id}/assign`, withJson(asAdmin(), '{}')),
          'NOT_FOUND',
        );
        expectError(
          await hit('POST', `/admin/v1/received-funds/${id}/return`, withJson(asAdmin(), '{}')),
          'NOT_FOUND',
        );
        expectError(await hit('GET', `/admin/v1/reconciliations/${id}`, { headers: asAdmin() }), 'NOT_FOUND');
      }
    });
  });

  describe('hostile bodies are clean 4xx on every route that takes a body', () => {
    hostileBodyTests(h, [
      ['POST', '/admin/v1/businesses', () => '/admin/v1/businesses', () => asAdmin()],
      [
        'PUT',
        '/admin/v1/businesses/{id}/fee-rules/pix',
        () => `/admin/v1/businesses/${a.businessId}/fee-rules/pix`,
        () => asAdmin(),
      ],
      [
        'POST',
        '/admin/v1/businesses/{id}/products',
        () => `/admin/v1/businesses/${a.businessId}/products`,
        () => asAdmin(),
      ],
      ['POST', '/admin/v1/reconciliations', () => '/admin/v1/reconciliations', () => asAdmin()],
      ['POST', '/admin/v1/adjustments', () => '/admin/v1/adjustments', () => asAdmin()],
    ]);
  });

  describe('free texts: any unicode within the limits is kept as sent; over the limits is INVALID_FIELDS', () => {
    const unicodeTitle = 'Caneca 😀🇧🇷 \u202Eodacifirev\u202C שלום مرحبا e\u0301\u0327\u0308 \uFEFF𝔘𝔫𝔦';

    test('a business and a product named in unicode are kept as sent', async () => {
      const business = await hit(
        'POST',
        '/admin/v1/businesses',
        withJson(asAdmin(), JSON.stringify({ name: unicodeTitle })),
      );
      expect(business.status).toBe(201);
      expect(business.json.name).toBe(unicodeTitle);
      const product = await hit(
        'POST',
        `/admin/v1/businesses/${a.businessId}/products`,
        withJson(asAdmin(), JSON.stringify({ name: unicodeTitle, price: 100 })),
      );
      expect(product.status).toBe(201);
      expect(product.json.name).toBe(unicodeTitle);
    });
  });

  describe('methods a route does not serve are NOT_FOUND (an unknown route), on every route', () => {
    unservedMethodTests(h, adminRoutes);
  });

  describe('hostile headers, credentials and query strings', () => {
    test.each([
      ['missing', undefined],
      ['wrong', 'Bearer not-the-admin-token-at-all-0123456789'],
      ['Basic', 'Basic YWRtaW46YWRtaW4='],
      ['lower-case bearer', () => `bearer ${h.stack.adminToken}`],
      ['with a trailing byte', () => `Bearer ${h.stack.adminToken}\xff`],
      ['10 KiB long', `Bearer ${'a'.repeat(10 * 1024)}`],
      ['the API key', () => `Bearer ${a.apiKey}`],
    ] as const)('an admin bearer %s is UNAUTHORIZED on every admin route', async (_what, value) => {
      const authorization = typeof value === 'function' ? value() : value;
      const headers: OutgoingHttpHeaders = authorization === undefined ? {} : { authorization };
      for (const [, path, served] of adminRoutes) {
        for (const method of served) {
          expectError(await hit(method, path(), withJson(headers, '{"name":"x"}')), 'UNAUTHORIZED');
        }
      }
    });

    test('admin bodies out of bounds are refused with their codes', async () => {
      const feeRule = `/admin/v1/businesses/${a.businessId}/fee-rules`;
      expectError(
        await hit('POST', '/admin/v1/businesses', withJson(asAdmin(), '{"name":""}')),
        'INVALID_FIELDS',
      );
      expectError(await hit('POST', '/admin/v1/businesses', withJson(asAdmin(), '{}')), 'MISSING_FIELDS');
      expectError(
        await hit(
          'POST',
          '/admin/v1/businesses',
          withJson(asAdmin(), JSON.stringify({ name: 'n'.repeat(5000) })),
        ),
        'INVALID_FIELDS',
      );
      for (const body of [
        '{"percent_bps":10001,"fixed_centavos":0}',
        '{"percent_bps":-1,"fixed_centavos":0}',
        '{"percent_bps":"1","fixed_centavos":0}',
        '{"percent_bps":1.5,"fixed_centavos":0}',
      ]) {
        expectError(await hit('PUT', `${feeRule}/pix`, withJson(asAdmin(), body)), 'INVALID_FIELDS');
      }
      expectError(
        await hit('PUT', `${feeRule}/card`, withJson(asAdmin(), '{"percent_bps":1,"fixed_centavos":0}')),
        'UNSUPPORTED_PAYMENT_METHOD',
      );
      expectError(
        await hit('PUT', `${feeRule}/%00`, withJson(asAdmin(), '{"percent_bps":1,"fixed_centavos":0}')),
        'UNSUPPORTED_PAYMENT_METHOD',
        'NOT_FOUND',
      );
    });

    test('nothing was parked', h.nothingParked);
  });
}
