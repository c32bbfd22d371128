import { randomBytes } from 'node:crypto';
import {
  groupedSecret,
  matchingStep,
  newTotpSecret,
  normaliseRecoveryCode,
  normaliseTotpCode,
  recoveryCodeFrom,
  recoveryCodeHash,
  totpCodeAt,
  totpLink,
} from '../src/domain/second-factor';

/** RFC 6238's SHA-1 test secret, the ASCII of "12345678901234567890", in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('the second factor (TOTP, RFC 6238)', () => {
  test.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ])("at %p s the code is RFC 6238's (last six digits)", (seconds, code) => {
    expect(totpCodeAt(RFC_SECRET, new Date(seconds * 1000))).toBe(code);
  });

  test('a code matches its own step, and one step either side of now, never further', () => {
    const now = new Date(1_700_000_000_000);
    const step = Math.floor(now.getTime() / 30_000);
    const at = (offsetSteps: number) =>
      totpCodeAt(RFC_SECRET, new Date(now.getTime() + offsetSteps * 30_000));
    expect(matchingStep(RFC_SECRET, at(0), now)).toBe(step);
    expect(matchingStep(RFC_SECRET, at(-1), now)).toBe(step - 1);
    expect(matchingStep(RFC_SECRET, at(1), now)).toBe(step + 1);
    expect(matchingStep(RFC_SECRET, at(-3), now)).toBeNull();
    expect(matchingStep(RFC_SECRET, at(3), now)).toBeNull();
    expect(matchingStep(newTotpSecret(randomBytes(20)), '000000', now)).toBeNull();
  });

  test('a new secret is 160 bits in base32, and its link is what authenticator apps read', () => {
    const secret = newTotpSecret(Buffer.alloc(20, 0xff));
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(() => newTotpSecret(Buffer.alloc(10))).toThrow();
    const link = new URL(totpLink(secret, 'dona@loja.test'));
    expect(link.protocol).toBe('otpauth:');
    expect(link.host).toBe('totp');
    expect(decodeURIComponent(link.pathname)).toContain('dona@loja.test');
    expect(link.searchParams.get('secret')).toBe(secret);
    expect(link.searchParams.get('digits')).toBe('6');
    expect(link.searchParams.get('period')).toBe('30');
    expect(groupedSecret('ABCDEFGHIJ')).toBe('ABCD EFGH IJ');
  });

  test('a code is six digits, as typed with spaces or a dash', () => {
    expect(normaliseTotpCode(' 123 456 ')).toBe('123456');
    expect(normaliseTotpCode('123-456')).toBe('123456');
    expect(normaliseTotpCode('12345')).toBeNull();
    expect(normaliseTotpCode('12345a')).toBeNull();
    expect(normaliseTotpCode('')).toBeNull();
  });

  test('recovery codes carry 80 random bits, read in any case and grouping, stored by hash', () => {
    const code = recoveryCodeFrom(randomBytes(10));
    expect(code).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    expect(recoveryCodeFrom(Buffer.alloc(10, 0))).toBe('AAAA-AAAA-AAAA-AAAA');
    expect(recoveryCodeFrom(Buffer.alloc(10, 0xff))).toBe('7777-7777-7777-7777');
    expect(normaliseRecoveryCode(code.toLowerCase().replace(/-/g, ' '))).toBe(code.replace(/-/g, ''));
    expect(normaliseRecoveryCode('123456')).toBeNull();
    expect(recoveryCodeHash(code.toLowerCase())).toBe(recoveryCodeHash(code));
    expect(recoveryCodeHash(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeHash(code)).not.toContain(code.replace(/-/g, ''));
  });
});
