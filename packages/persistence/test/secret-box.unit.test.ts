import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { openSecret, sealSecret } from '../src/secret-box';

describe('secret box', () => {
  it('opens what it sealed, for any text', () => {
    const key = randomBytes(32);
    fc.assert(
      fc.property(fc.fullUnicodeString(), (plaintext) =>
        expect(openSecret(sealSecret(plaintext, key), key)).toBe(plaintext),
      ),
    );
  });

  it('writes v1:<iv>:<tag>:<ciphertext> in base64url without revealing the secret', () => {
    const secret = 'whsec_' + randomBytes(32).toString('base64');
    const sealed = sealSecret(secret, randomBytes(32));
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
  });

  it('uses a fresh IV each time, so the same secret never seals to the same text', () => {
    const key = randomBytes(32);
    expect(sealSecret('whsec_same', key)).not.toBe(sealSecret('whsec_same', key));
  });

  it('refuses to open with another key', () => {
    const sealed = sealSecret('whsec_x', randomBytes(32));
    expect(() => openSecret(sealed, randomBytes(32))).toThrow();
  });

  it('refuses a ciphertext with any single character changed', () => {
    const key = randomBytes(32);
    const sealed = sealSecret('whsec_tamper_me', key);
    const parts = sealed.split(':');
    for (const index of [1, 2, 3]) {
      const part = parts[index]!;
      const flipped = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
      const tampered = parts.map((p, i) => (i === index ? flipped : p)).join(':');
      expect(() => openSecret(tampered, key)).toThrow();
    }
  });

  it('refuses unknown versions and malformed values', () => {
    const key = randomBytes(32);
    const [, iv, tag, ct] = sealSecret('whsec_y', key).split(':');
    expect(() => openSecret(`v2:${iv}:${tag}:${ct}`, key)).toThrow(/format/);
    expect(() => openSecret(`v1:${iv}:${tag}`, key)).toThrow(/format/);
    expect(() => openSecret(`v1:${iv}:${tag}:${ct}:extra`, key)).toThrow(/format/);
    expect(() => openSecret('plain', key)).toThrow(/format/);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => sealSecret('whsec_z', randomBytes(16))).toThrow(/32 bytes/);
    expect(() => openSecret('v1:a:b:c', randomBytes(31))).toThrow(/32 bytes/);
  });
});
