import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for ids come from a pool refilled 4 KiB at a time: one call into the system's generator costs about
 * 20 µs here however few bytes it returns, and one payment takes several ids (node's randomUUID pools for the same
 * reason). Ids only: a secret (API key, webhook secret, IV) takes `crypto.randomBytes` of its own.
 */
const pool = Buffer.allocUnsafe(4096);
let poolUsed = pool.length;

/** `bytes` random bytes as text, each byte of the pool handed out once. */
export function randomIdText(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (poolUsed + bytes > pool.length) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  const text = pool.toString(encoding, poolUsed, poolUsed + bytes);
  poolUsed += bytes;
  return text;
}

/** A public id as docs/api.md#resources-and-ids states it: prefix, `_`, then 24 url-safe random characters (144 bits, not sequential). */
export function newPublicId(prefix: string): string {
  return `${prefix}_${randomIdText(18, 'base64url')}`;
}
