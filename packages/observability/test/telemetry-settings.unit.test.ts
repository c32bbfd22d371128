import { tracesUrl } from '../src/telemetry';
import { redactUrl } from '../src/telemetry-sdk';

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
});
