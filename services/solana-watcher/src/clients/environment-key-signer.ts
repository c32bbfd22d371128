import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
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
    if (secretKey.length !== 64) throw new SignerKeyInvalid();
    const seed = secretKey.subarray(0, 32);
    const publicKey = secretKey.subarray(32);
    try {
      this.#key = createPrivateKey({
        key: { kty: 'OKP', crv: 'Ed25519', d: base64url(seed), x: base64url(publicKey) },
        format: 'jwk',
      });
    } catch {
      throw new SignerKeyInvalid();
    }
    this.publicKey = encodeBase58(publicKey);
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

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
