import { randomBytes } from 'node:crypto';

/** A public id as decisions.md fixes it: prefix, `_`, then 24 url-safe random characters (144 bits, not sequential). */
export function newPublicId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString('base64url')}`;
}
