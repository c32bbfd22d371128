import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM sealing of text that must never be stored in clear (webhook signing secrets, idempotent answers that
 * carry one). Sealed values read `v1:<iv>:<tag>:<ciphertext>` (base64url parts).
 */
export function sealSecret(plaintext: string, key: Buffer): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join(':');
}

/** Throws when the value is malformed, was sealed with another key, or was tampered with. */
export function openSecret(sealed: string, key: Buffer): string {
  assertKey(key);
  const [version, iv, tag, ciphertext, ...rest] = sealed.split(':');
  if (
    version !== VERSION ||
    iv === undefined ||
    tag === undefined ||
    ciphertext === undefined ||
    rest.length > 0
  ) {
    throw new Error('sealed secret has an unknown format');
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
    throw new Error('sealed secret has an unknown format');
  }
  const decipher = createDecipheriv(ALGORITHM, key, ivBytes);
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}

/** A sealing key as configured: the base64 of exactly 32 bytes; throws (for config validation) otherwise. */
export function parseSealingKey(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || key.length !== KEY_BYTES) {
    throw new Error(`must be the base64 of exactly ${KEY_BYTES} bytes`);
  }
  return key;
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) {
    throw new Error(`secret encryption key must be ${KEY_BYTES} bytes`);
  }
}
