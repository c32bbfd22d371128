/** A random id with its kind's prefix (`usr_...`); the randomness is passed in. */
export function newId(prefix: string, randomBytes: (size: number) => Buffer): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}
