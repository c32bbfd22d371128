import { SpanKind } from '@opentelemetry/api';
import { parseKeyValues, tracesUrl } from '../src/telemetry';
import { redactedUrlAttributes, redactUrl } from '../src/telemetry-sdk';
import { outgoingTarget } from '../src/tracing';

describe('where spans go and what their URLs show', () => {
  test('the base endpoint gets /v1/traces appended, once; the traces endpoint is taken as it is and wins', () => {
    expect(tracesUrl({})).toBeUndefined();
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example.com/otlp/' })).toBe(
      'https://collector.example.com/otlp/v1/traces',
    );
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/custom',
      }),
    ).toBe('http://tempo:4318/custom');
  });

  test('every query value and any user info of a URL are redacted; names, host and path stay', () => {
    expect(redactUrl('https://user:pass@rpc.example.com:8443/v1/?api-key=abc&cluster=main')).toBe(
      'https://rpc.example.com:8443/v1/?api-key=REDACTED&cluster=REDACTED',
    );
    expect(redactUrl('http://127.0.0.1:3101/webhook?token=abc/pix')).toBe(
      'http://127.0.0.1:3101/webhook?token=REDACTED',
    );
    expect(redactUrl('http://127.0.0.1:3101/webhook')).toBe('http://127.0.0.1:3101/webhook');
  });

  test('a query string alone is redacted the same, with or without its question mark', () => {
    expect(redactUrl('token=abc%2Fpix&x=1')).toBe('token=REDACTED&x=REDACTED');
    expect(redactUrl('?token=abc')).toBe('?token=REDACTED');
    expect(redactUrl('')).toBe('');
  });

  test("a call out keeps only scheme, host and port of its URL: a provider's key in the path (Alchemy /v2/<key>, QuickNode /<token>/) goes", () => {
    const alchemy = 'https://solana-mainnet.g.alchemy.com/v2/alch-key-123';
    const quicknode = 'https://example.solana-mainnet.quiknode.pro/qn-token-456/';
    expect(
      redactedUrlAttributes(SpanKind.CLIENT, {
        'url.full': alchemy,
        'url.path': '/v2/alch-key-123',
        'server.address': 'solana-mainnet.g.alchemy.com',
      }),
    ).toEqual({ 'url.full': 'https://solana-mainnet.g.alchemy.com', 'url.path': 'REDACTED' });
    expect(
      redactedUrlAttributes(SpanKind.CLIENT, {
        'http.url': `${quicknode}?api-key=abc`,
        'http.target': '/qn-token-456/?api-key=abc',
        'url.query': 'api-key=abc',
      }),
    ).toEqual({
      'http.url': 'https://example.solana-mainnet.quiknode.pro',
      'http.target': 'REDACTED',
      'url.query': 'REDACTED',
    });
    expect(outgoingTarget(alchemy)).toEqual({
      'url.scheme': 'https',
      'server.address': 'solana-mainnet.g.alchemy.com',
      'server.port': 443,
    });
    expect(outgoingTarget('http://hooks.example.com/webhook')).toMatchObject({ 'server.port': 80 });
    expect(outgoingTarget('not a url')).toEqual({});
    expect(outgoingTarget('http://user:pw@127.0.0.1:8899/qn-token-456/')).toEqual({
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'server.port': 8899,
    });
  });

  test("a request to us keeps its route's path; its query values are redacted, in either convention", () => {
    expect(
      redactedUrlAttributes(SpanKind.SERVER, {
        'url.full': 'http://127.0.0.1:3101/webhook?token=abc',
        'url.path': '/webhook',
        'url.query': 'token=abc',
        'http.target': '/webhook/pix?token=abc/pix',
      }),
    ).toEqual({
      'url.full': 'http://127.0.0.1:3101/webhook?token=REDACTED',
      'url.path': '/webhook',
      'url.query': 'token=REDACTED',
      'http.target': '/webhook/pix?token=REDACTED',
    });
  });

  test('key=value lists (resource attributes, export headers) are read with their values percent-decoded', () => {
    expect(parseKeyValues('authorization=Bearer%20abc,x-tenant=gw')).toEqual({
      authorization: 'Bearer abc',
      'x-tenant': 'gw',
    });
    expect(parseKeyValues(undefined)).toEqual({});
  });
});
