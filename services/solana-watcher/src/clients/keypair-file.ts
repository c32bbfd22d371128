import { readFileSync } from 'node:fs';

/** The keypair file cannot be used; the reason never quotes the file's content (it is a key). */
export class KeypairFileUnusable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'KeypairFileUnusable';
  }
}

/**
 * The 64-byte secret key of a Solana keypair file as `solana-keygen new -o <file>` writes it: a JSON array of 64
 * integers from 0 to 255 (the seed, then the public key). Read once, at start; a file that cannot be read, or that
 * is anything else, is refused with a reason that says what is wrong and nothing of what the file holds.
 */
export function readKeypairFile(path: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new KeypairFileUnusable(`the keypair file cannot be read (${code})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeypairFileUnusable(notAKeypair);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 64 ||
    !parsed.every((byte) => Number.isInteger(byte) && (byte as number) >= 0 && (byte as number) <= 255)
  )
    throw new KeypairFileUnusable(notAKeypair);
  return Uint8Array.from(parsed as number[]);
}

const notAKeypair =
  'the keypair file is not a Solana keypair (a JSON array of 64 integers from 0 to 255, as solana-keygen writes it)';
