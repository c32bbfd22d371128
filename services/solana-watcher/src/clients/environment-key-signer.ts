import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import { encodeBase58 } from '../domain/base58';
import type { TransactionSigner } from '../domain/transaction-signer';

/** The signer's failure, never carrying the key nor anything derived from it. */
export class SignerKeyInvalid extends Error {
  constructor() {
    super('the signing key is not a valid 64-byte ed25519 secret key');
    this.name = 'SignerKeyInvalid';
  }
}

/**
 * The signer of a key the process holds: the receiving wallet's 64-byte secret key from the environment
 * (REFUND_SIGNER_SECRET_KEY, the default) or from a keypair file (REFUND_SIGNER_KEYPAIR_FILE), held as a node KeyObject (which prints no key material) in a private field. Printing, logging or serialising the
 * signer shows its public key only.
 */
export class EnvironmentKeySigner implements TransactionSigner {
  readonly publicKey: string;
  readonly #key: KeyObject;

  /** `secretKey`: seed (32 bytes) then public key (32 bytes), as Solana wallets store it. */
  constructor(secretKey: Uint8Array) {
    const key = keyPairOf(secretKey);
    if (!key) throw new SignerKeyInvalid();
    this.#key = key;
    this.publicKey = encodeBase58(secretKey.subarray(32));
  }

  sign(message: Uint8Array): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(sign(null, message, this.#key)));
  }

  toJSON(): { publicKey: string } {
    return { publicKey: this.publicKey };
  }

  toString(): string {
    return `EnvironmentKeySigner(${this.publicKey})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/**
 * The public key (base58) a 64-byte secret key signs for: null unless it is an ed25519 seed followed by the public
 * key that seed makes. Checked with node's own ed25519 (OpenSSL), so loading no JavaScript curve code at start.
 */
export function signerPublicKeyOf(secretKey: Uint8Array | null): string | null {
  return secretKey && keyPairOf(secretKey) ? encodeBase58(secretKey.subarray(32)) : null;
}

/**
 * The private key of a seed-then-public-key secret key, or null when it is no consistent key pair. Node takes the
 * JWK's `x` as given, so the public key the seed makes is compared with it here.
 */
function keyPairOf(secretKey: Uint8Array): KeyObject | null {
  if (secretKey.length !== 64) return null;
  const x = base64url(secretKey.subarray(32));
  try {
    const key = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: base64url(secretKey.subarray(0, 32)), x },
      format: 'jwk',
    });
    return createPublicKey(key).export({ format: 'jwk' }).x === x ? key : null;
  } catch {
    return null;
  }
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
