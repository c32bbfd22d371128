import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { decodeBase58, encodeBase58 } from './base58';

/** The Associated Token Account program: the one token account of a wallet for a mint lives at its address. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

const PROGRAM_DERIVED_ADDRESS = Buffer.from('ProgramDerivedAddress');
const MAX_SEED_LENGTH = 32;

/**
 * Whether 32 bytes are a point of ed25519 (a key someone may hold the secret of), decoded strictly as web3.js and
 * spl-token decide it (the runtime's own decoding also takes the few non-canonical encodings; no hash lands on one).
 */
export function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromHex(bytes);
    return true;
  } catch {
    return false;
  }
}

function keyBytes(key: string): Uint8Array {
  const bytes = decodeBase58(key);
  if (bytes?.length !== 32) throw new Error(`${key} is not a base58 public key`);
  return bytes;
}

/**
 * The address the runtime derives from `seeds` for `programId` (sha256 of the seeds, the program and the marker
 * "ProgramDerivedAddress"), or null when it falls on the curve, where no program may own it.
 */
export function createProgramAddress(seeds: readonly Uint8Array[], programId: string): string | null {
  if (seeds.some((seed) => seed.length > MAX_SEED_LENGTH)) throw new Error('a seed is longer than 32 bytes');
  const hash = createHash('sha256');
  for (const seed of seeds) hash.update(seed);
  const address = hash.update(keyBytes(programId)).update(PROGRAM_DERIVED_ADDRESS).digest();
  return isOnCurve(address) ? null : encodeBase58(address);
}

/** The canonical program address: the first off the curve with a bump seed from 255 down to 1, as the runtime finds it. */
export function findProgramAddress(
  seeds: readonly Uint8Array[],
  programId: string,
): { address: string; bump: number } {
  for (let bump = 255; bump >= 1; bump--) {
    const address = createProgramAddress([...seeds, Uint8Array.of(bump)], programId);
    if (address !== null) return { address, bump };
  }
  throw new Error('no program address off the curve for these seeds');
}

/**
 * The associated token account of `wallet` for `mint` under `tokenProgram` (SPL Token or Token-2022): seeds wallet,
 * token program, mint, for the Associated Token Account program. The wallet must be on the curve (a key, not a program
 * address), as the SPL library's default requires.
 */
export function associatedTokenAddress(wallet: string, mint: string, tokenProgram: string): string {
  const owner = keyBytes(wallet);
  if (!isOnCurve(owner)) throw new Error(`${wallet} is not a wallet key (off the curve)`);
  return findProgramAddress([owner, keyBytes(tokenProgram), keyBytes(mint)], ASSOCIATED_TOKEN_PROGRAM_ID)
    .address;
}
