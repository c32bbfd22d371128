import {
  type DeliveryAttemptResult,
  classifyDeliveryResult,
  parseRetryAfter,
} from '../src/domain/delivery-outcome';

const NOW = Date.parse('2025-01-15T12:00:00Z');

function response(status: number, headers: Record<string, string | string[]> = {}): DeliveryAttemptResult {
  return { kind: 'response', status, headers, bodySnippet: '', latencyMs: 5 };
}

describe('classifyDeliveryResult', () => {
  it.each([200, 201, 202, 204, 299])('treats %i as success', (status) => {
    expect(classifyDeliveryResult(response(status), NOW)).toEqual({ kind: 'success' });
  });

  it('disables the webhook on 410 Gone', () => {
    expect(classifyDeliveryResult(response(410), NOW)).toEqual({ kind: 'disable_webhook' });
  });

  it.each([301, 302, 400, 401, 404, 408, 500, 502, 504])('retries %i without a Retry-After', (status) => {
    expect(classifyDeliveryResult(response(status, { 'retry-after': '120' }), NOW)).toEqual({
      kind: 'retry',
    });
  });

  it.each([429, 503])('retries %i honouring Retry-After in seconds', (status) => {
    expect(classifyDeliveryResult(response(status, { 'retry-after': '120' }), NOW)).toEqual({
      kind: 'retry',
      retryAfterSeconds: 120,
    });
  });

  it('retries 503 honouring Retry-After as an HTTP-date', () => {
    const result = response(503, { 'retry-after': 'Wed, 15 Jan 2025 12:01:30 GMT' });
    expect(classifyDeliveryResult(result, NOW)).toEqual({ kind: 'retry', retryAfterSeconds: 90 });
  });

  it('uses the first Retry-After when the header repeats', () => {
    expect(classifyDeliveryResult(response(429, { 'retry-after': ['7', '90'] }), NOW)).toEqual({
      kind: 'retry',
      retryAfterSeconds: 7,
    });
  });

  it('retries 429 on the schedule when Retry-After is absent', () => {
    expect(classifyDeliveryResult(response(429), NOW)).toEqual({ kind: 'retry' });
  });

  it.each(['timeout', 'connection', 'dns', 'tls', 'ssrf_refused'] as const)(
    'retries after a %s error',
    (error) => {
      expect(classifyDeliveryResult({ kind: 'error', error, message: 'x', latencyMs: 1 }, NOW)).toEqual({
        kind: 'retry',
      });
    },
  );
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    [' 42 ', 42],
    ['Wed, 15 Jan 2025 12:00:10 GMT', 10],
    ['Wed, 15 Jan 2025 11:00:00 GMT', 0],
  ])('reads "%s" as %i seconds', (value, seconds) => {
    expect(parseRetryAfter(value, NOW)).toBe(seconds);
  });

  it.each([undefined, '', '1.5', '-3', 'soon', '12abc'])('ignores %p', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
