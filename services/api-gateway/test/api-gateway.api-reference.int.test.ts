import { buildOpenApiDocument, type OpenApiDocument } from '../src/http/openapi';
import { startHarness, type Harness } from './support/harness';

const SIMULATE = '/v1/sandbox/payments/{payment_id}/simulate';

const STRICT_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

describe('api gateway: /openapi.json and /docs', () => {
  let h: Harness;

  beforeAll(async () => {
    // One request a minute: anything counted is refused at once, so what is not counted shows.
    h = await startHarness('gw-reference', { config: { RATE_LIMIT_PER_MINUTE: 1 } });
  });

  afterAll(async () => {
    await h?.close();
  });

  test('answer without an API key and are never rate limited', async () => {
    await h.http.get('/v1/payments');
    const limited = await h.http.get('/v1/payments');
    expect({ status: limited.status, code: limited.body.error.code }).toEqual({
      status: 429,
      code: 'RATE_LIMITED',
    });
    for (const path of ['/openapi.json', '/docs', '/docs/assets/api-reference.js']) {
      for (let i = 0; i < 3; i++) {
        const response = await h.http.get(path);
        expect({ path, status: response.status, counted: 'ratelimit-limit' in response.headers }).toEqual({
          path,
          status: 200,
          counted: false,
        });
      }
    }
  });

  test("/openapi.json is this gateway's own document: its environment's routes and its configured limits", async () => {
    const response = await h.http.get('/openapi.json');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual(
      buildOpenApiDocument({
        environment: h.config.APP_ENV,
        rateLimits: {
          api: h.config.RATE_LIMIT_PER_MINUTE,
          dashboard: h.config.DASHBOARD_RATE_LIMIT_PER_MINUTE,
          admin: h.config.ADMIN_RATE_LIMIT_PER_MINUTE,
          checkout: h.config.CHECKOUT_RATE_LIMIT_PER_MINUTE,
        },
      }),
    );
    const document = response.body as OpenApiDocument;
    expect(Object.keys(document.paths)).toContain(SIMULATE);
    expect(document.info.description).toContain('1 requests per API key');
  });

  test('/docs loads only its own versioned files, nothing inline, under a strict Content-Security-Policy', async () => {
    const page = await h.http.get('/docs');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(STRICT_POLICY);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(page.text).not.toMatch(/<style|\sstyle=/);
    expect(page.text).toContain('data-try-it-out="true"');
    const linked = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(linked.map((url) => url.replace(/\?v=.*/, '')).sort()).toEqual(
      [
        '/docs/assets/api-reference.js',
        '/docs/assets/favicon-32x32.png',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/swagger-ui.css',
      ].sort(),
    );
    const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, png: /^image\/png/ };
    for (const url of linked) {
      const asset = await h.http.get(url).buffer(true);
      expect({
        url,
        status: asset.status,
        type: types[url.replace(/\?.*/, '').split('.').pop()!]!.test(asset.headers['content-type'] ?? ''),
        cache: asset.headers['cache-control'],
        policy: asset.headers['content-security-policy'],
      }).toEqual({
        url,
        status: 200,
        type: true,
        cache: 'public, max-age=31536000, immutable',
        policy: STRICT_POLICY,
      });
    }
    const unversioned = await h.http.get('/docs/assets/swagger-ui.css');
    expect(unversioned.headers['cache-control']).toBe('public, max-age=0');
    for (const path of [
      '/docs/assets/index.html',
      '/docs/assets/package.json',
      '/docs/assets/..%2Fpackage.json',
    ]) {
      const refused = await h.http.get(path);
      expect({ path, status: refused.status, code: refused.body.error?.code }).toEqual({
        path,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
  });

  test('a production gateway documents no sandbox route and offers no "try it out"', async () => {
    const production = await startHarness('gw-reference-prod', { config: { APP_ENV: 'production' } });
    try {
      const document = (await production.http.get('/openapi.json')).body as OpenApiDocument;
      expect(Object.keys(document.paths)).not.toContain(SIMULATE);
      expect((await production.http.get('/docs')).text).toContain('data-try-it-out="false"');
    } finally {
      await production.close();
    }
  });
});
