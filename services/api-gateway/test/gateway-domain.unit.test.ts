import { randomBytes } from 'node:crypto';
import { digestsEqual, generateApiKey, hashApiKey, parseApiKey } from '../src/domain/api-key';
import { baseUnitsToNumber } from '../src/domain/money';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '@gateway/contracts';
import { findBoundsViolation } from '../src/domain/json-bounds';
import {
  TooDeepToCanonicalize,
  canonicalJson,
  idempotentCommandId,
  requestHash,
} from '../src/domain/request-fingerprint';

describe('API keys', () => {
  test('a sandbox key is sk_test_ plus 43 url-safe characters, and parses back to its prefix', () => {
    const issued = generateApiKey('sandbox', randomBytes);
    expect(issued.apiKey).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(parseApiKey(issued.apiKey)).toEqual({ environment: 'sandbox', keyPrefix: issued.keyPrefix });
    expect(issued.keyPrefix).toHaveLength(12);
    expect(digestsEqual(hashApiKey(issued.apiKey), issued.hash)).toBe(true);
  });

  test('a production key is sk_live_; two keys never share their hash', () => {
    const a = generateApiKey('production', randomBytes);
    const b = generateApiKey('production', randomBytes);
    expect(parseApiKey(a.apiKey)?.environment).toBe('production');
    expect(digestsEqual(a.hash, b.hash)).toBe(false);
  });

  test('the key is the environment prefix and the base64url of 32 random bytes; its first 12 characters name it', () => {
    const issued = generateApiKey('sandbox', (size) => new Uint8Array(size).fill(0xfb));
    expect(issued.apiKey).toBe(`sk_test_${'-_v7'.repeat(10)}-_s`);
    expect(issued.keyPrefix).toBe('-_v7'.repeat(3));
    expect(issued.hash).toEqual(hashApiKey(issued.apiKey));
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

describe('token amounts at the edge', () => {
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

  test('the command id is the same for one claim of a key and request, and changes with any of them', () => {
    const hash = requestHash('POST', '/v1/payments', { amount: 1000 });
    const other = requestHash('POST', '/v1/payments', { amount: 2000 });
    const id = idempotentCommandId('biz_a', 'k1', hash, 'claim-1');
    expect(idempotentCommandId('biz_a', 'k1', hash, 'claim-1')).toBe(id);
    expect(idempotentCommandId('biz_b', 'k1', hash, 'claim-1')).not.toBe(id);
    expect(idempotentCommandId('biz_a', 'k2', hash, 'claim-1')).not.toBe(id);
    expect(idempotentCommandId('biz_a', 'k1', other, 'claim-1')).not.toBe(id);
    expect(idempotentCommandId('biz_a', 'k1', hash, 'claim-2')).not.toBe(id);
    expect(id.length).toBeLessThanOrEqual(200);
  });

  test('canonicalisation refuses nesting deeper than MAX_JSON_DEPTH instead of recursing on', () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 'fundo';
      for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? [value] : { a: value };
      return value;
    };
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => canonicalJson(nested(MAX_JSON_DEPTH + 1))).toThrow(TooDeepToCanonicalize);
    expect(() => canonicalJson(nested(100_000))).toThrow(TooDeepToCanonicalize);
  });
});

describe('JSON bounds', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 'x';
    for (let i = 0; i < levels; i += 1) value = { a: value };
    return value;
  };

  test('nesting up to MAX_JSON_DEPTH passes, one more level is too deep, at any depth without recursion', () => {
    expect(findBoundsViolation(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBeUndefined();
    expect(findBoundsViolation(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toEqual({ kind: 'too_deep' });
    expect(findBoundsViolation(nested(200_000), MAX_JSON_DEPTH)).toEqual({ kind: 'too_deep' });
  });

  test('a NUL anywhere, in a value or a key, is found and named by its top-level field', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5 }),
        fc.string(),
        fc.string(),
        fc.constantFrom('value', 'key'),
        (noise, before, after, where) => {
          fc.pre(!JSON.stringify(noise).includes('\\u0000'));
          const poisoned = `${before}\u0000${after}`;
          const inner = where === 'value' ? { texto: poisoned } : { [poisoned]: 1 };
          const body = { limpo: noise, campo: [{ nivel: inner }] };
          expect(findBoundsViolation(body, MAX_JSON_DEPTH)).toEqual({
            kind: 'nul_character',
            field: 'campo',
          });
        },
      ),
    );
  });

  test('values without NUL and within the depth pass', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), (value) => {
        fc.pre(!JSON.stringify(value).includes('\\u0000'));
        expect(findBoundsViolation({ value }, MAX_JSON_DEPTH)).toBeUndefined();
      }),
    );
  });
});
