const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Bytes at or above 248 (= 4 * 62) are skipped so every character is equally likely.
const UNBIASED_LIMIT = 248;
export const TXID_LENGTH = 32;
const TXID_PATTERN = /^[a-zA-Z0-9]{26,35}$/;

/** Source of cryptographically random bytes, e.g. node's `crypto.randomBytes`, injected to keep the domain pure. */
export type RandomBytes = (size: number) => Uint8Array;

/** A cob txid (API Pix: `[a-zA-Z0-9]{26,35}`) of 32 random alphanumerics. */
export function generateTxid(randomBytes: RandomBytes): string {
  let txid = '';
  while (txid.length < TXID_LENGTH) {
    for (const byte of randomBytes(TXID_LENGTH)) {
      if (byte < UNBIASED_LIMIT && txid.length < TXID_LENGTH) txid += ALPHABET[byte % ALPHABET.length];
    }
  }
  return txid;
}

export function isValidTxid(txid: string): boolean {
  return TXID_PATTERN.test(txid);
}
