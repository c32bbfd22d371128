const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Decodes base58 (Bitcoin alphabet); null when a character is outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | null {
  let value = 0n;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  const leadingZeros = text.length - text.replace(/^1+/, '').length;
  return Uint8Array.from([...new Array<number>(leadingZeros).fill(0), ...bytes]);
}

/** Encodes bytes as base58 (Bitcoin alphabet); each leading zero byte becomes a leading '1'. */
export function encodeBase58(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let digits = '';
  while (value > 0n) {
    digits = ALPHABET[Number(value % 58n)]! + digits;
    value /= 58n;
  }
  const leadingZeros = bytes.findIndex((byte) => byte !== 0);
  return '1'.repeat(leadingZeros === -1 ? bytes.length : leadingZeros) + digits;
}

export function isPublicKey(text: string): boolean {
  return decodeBase58(text)?.length === 32;
}
