const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** API Pix `DevolucaoId`: `[a-zA-Z0-9]{1,35}`. */
export const DEVOLUCAO_ID_PATTERN = /^[a-zA-Z0-9]{1,35}$/;
const DEVOLUCAO_ID_LENGTH = 35;

/** A hash function, e.g. SHA-256 from node's crypto, injected to keep the domain pure. */
export type Digest = (text: string) => Uint8Array;

/**
 * The devolução id a refund always gets: every delivery of its request (repeated, concurrent, or under a new message
 * id) and every poll meet at the PSP on one devolução, since a replayed `PUT /pix/{e2eid}/devolucao/{id}` answers the
 * devolução already there. The refund id itself may hold `_` and `-` and be longer than 35, so it is hashed: 35 base-62
 * digits of a 256-bit digest keep about 208 bits, no collision in practice.
 */
export function devolucaoIdOf(refundId: string, digest: Digest): string {
  let value = 0n;
  for (const byte of digest(refundId)) value = (value << 8n) | BigInt(byte);
  let id = '';
  const base = BigInt(ALPHABET.length);
  for (let i = 0; i < DEVOLUCAO_ID_LENGTH; i += 1) {
    id += ALPHABET[Number(value % base)];
    value /= base;
  }
  return id;
}
