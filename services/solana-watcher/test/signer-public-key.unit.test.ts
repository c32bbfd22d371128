import { Keypair } from '@solana/web3.js';
import { signerPublicKeyOf } from '../src/clients/environment-key-signer';

describe('the public key a secret key signs for, read with node’s ed25519', () => {
  test('is the wallet’s address for every Solana key pair, as web3.js derives it', () => {
    for (let i = 0; i < 200; i++) {
      const wallet = Keypair.generate();
      expect(signerPublicKeyOf(wallet.secretKey)).toBe(wallet.publicKey.toBase58());
    }
  });

  test('is none when the public half is not the one the seed makes, or the key is not 64 bytes', () => {
    const wallet = Keypair.generate();
    for (let byte = 0; byte < 64; byte += 7) {
      const flipped = Uint8Array.from(wallet.secretKey);
      flipped[byte] = flipped[byte]! ^ 1;
      expect(signerPublicKeyOf(flipped)).toBeNull();
    }
    expect(signerPublicKeyOf(wallet.secretKey.subarray(0, 63))).toBeNull();
    expect(signerPublicKeyOf(new Uint8Array(64))).toBeNull();
    expect(signerPublicKeyOf(null)).toBeNull();
  });
});
