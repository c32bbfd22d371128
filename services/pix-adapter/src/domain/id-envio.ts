import { type Digest } from './devolucao-id';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/**
 * Efí's `idEnvio`: `^[a-zA-Z0-9]{1,35}$`, chosen by the sender, one send per id
 * (https://dev.efipay.com.br/docs/api-pix/envio-pagamento-pix/).
 */
export const ID_ENVIO_PATTERN = /^[a-zA-Z0-9]{1,35}$/;
const ID_ENVIO_LENGTH = 35;
// Keeps the ids of payouts apart from any other id hashed the same way.
const NAMESPACE = 'payout:';

/**
 * The idEnvio a payout always gets, so every attempt to pay it (a retry after a lost answer, a redelivered command, a
 * restart) names the same send: the PSP refuses a second send under it, and the payout's state is read back by it,
 * never sent again. A payout id may hold `_` and `-` and be of any length, so it is hashed: 35 base-62 digits of a
 * 256-bit digest keep about 208 bits, no collision in practice.
 */
export function idEnvioOf(payoutId: string, digest: Digest): string {
  if (payoutId.length === 0) throw new Error('a payout id is needed to derive its idEnvio');
  let value = 0n;
  for (const byte of digest(`${NAMESPACE}${payoutId}`)) value = (value << 8n) | BigInt(byte);
  const base = BigInt(ALPHABET.length);
  let id = '';
  for (let i = 0; i < ID_ENVIO_LENGTH; i += 1) {
    id += ALPHABET[Number(value % base)];
    value /= base;
  }
  return id;
}
