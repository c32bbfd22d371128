import { digestsEqual, generateApiKey, hashApiKey, parseApiKey } from '../src/domain/api-key';
import { baseUnitsToNumber, centavosToBrl } from '../src/domain/money';
import { canonicalJson, idempotentCommandId, requestHash } from '../src/domain/request-fingerprint';

describe('API keys', () => {
  test('a sandbox key is sk_test_ plus 43 url-safe characters, and parses back to its prefix', () => {
    const issued = generateApiKey('sandbox');
    expect(issued.apiKey).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(parseApiKey(issued.apiKey)).toEqual({ environment: 'sandbox', keyPrefix: issued.keyPrefix });
    expect(issued.keyPrefix).toHaveLength(12);
    expect(digestsEqual(hashApiKey(issued.apiKey), issued.hash)).toBe(true);
  });

  test('a production key is sk_live_; two keys never share their hash', () => {
    const a = generateApiKey('production');
    const b = generateApiKey('production');
    expect(parseApiKey(a.apiKey)?.environment).toBe('production');
    expect(digestsEqual(a.hash, b.hash)).toBe(false);
  });

  test.each([
    '',
    'sk_test_short',
    `pk_test_${'a'.repeat(43)}`,
    `sk_test_${'a'.repeat(42)}!`,
    `sk_test_${'a'.repeat(44)}`,
  ])('%j is not a key', (text) => {
    expect(parseApiKey(text)).toBeNull();
  });
});

describe('money at the edge', () => {
  test.each([
    [12345, 123.45],
    [100, 1],
    [1, 0.01],
    [0, 0],
  ])('%i centavos are %d BRL', (centavos, brl) => {
    expect(centavosToBrl(centavos)).toBe(brl);
  });

  test.each([
    ['18234568', 6, 18.234568],
    ['1', 6, 0.000001],
    ['1000000', 6, 1],
    ['42', 0, 42],
  ])('%s base units with %i decimals are %d tokens', (baseUnits, decimals, expected) => {
    expect(baseUnitsToNumber(baseUnits, decimals)).toBe(expected);
  });
});

describe('request fingerprints', () => {
  test('key order does not change the canonical form; values do', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":2,"d":1}]}');
    expect(requestHash('post', '/v1/payments', { a: 1, b: 2 })).toEqual(
      requestHash('POST', '/v1/payments', { b: 2, a: 1 }),
    );
    expect(requestHash('POST', '/v1/payments', { a: 1 })).not.toEqual(
      requestHash('POST', '/v1/payments', { a: 2 }),
    );
    expect(requestHash('POST', '/v1/payments', {})).not.toEqual(requestHash('POST', '/v1/customers', {}));
  });

  test('the command id depends on business and key only', () => {
    expect(idempotentCommandId('biz_a', 'k1')).toBe(idempotentCommandId('biz_a', 'k1'));
    expect(idempotentCommandId('biz_a', 'k1')).not.toBe(idempotentCommandId('biz_b', 'k1'));
    expect(idempotentCommandId('biz_a', 'k1').length).toBeLessThanOrEqual(200);
  });
});
