import { scrypt, timingSafeEqual } from 'node:crypto';

/** Shorter passwords are refused at sign-up; longer ones than the maximum are refused unhashed (bounded work). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;
export const PASSWORD_SALT_BYTES = 16;

/** scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB of memory and tens of milliseconds per hash). */
const COST_LOG2 = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, costLog2: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** costLog2;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/**
 * A password as stored: `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can be raised later and old
 * hashes still verify. The salt is passed in (randomness stays outside the domain).
 */
export async function hashPassword(password: string, salt: Buffer): Promise<string> {
  const hash = await derive(password, salt, COST_LOG2, BLOCK_SIZE, PARALLELISM);
  return [
    'scrypt',
    COST_LOG2,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

/** Whether `password` is the one `stored` was made from; a malformed stored value verifies nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, costLog2, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !costLog2 || !r || !p || !salt || !hash) return false;
  if (password.length > PASSWORD_MAX_LENGTH) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    Number(costLog2),
    Number(r),
    Number(p),
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
