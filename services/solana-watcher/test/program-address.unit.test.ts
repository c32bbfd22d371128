import { randomBytes } from 'node:crypto';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID as SPL_ASSOCIATED_TOKEN_PROGRAM_ID,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  findProgramAddress,
  isOnCurve,
} from '../src/domain/program-address';

describe("program addresses, derived as the runtime and the SPL library derive them (the watcher's token accounts)", () => {
  test('on the curve or off it: the same answer as web3.js for keys, hashes and random bytes', () => {
    const samples = [
      ...Array.from({ length: 200 }, () => Keypair.generate().publicKey.toBytes()),
      ...Array.from({ length: 2_000 }, () => Uint8Array.from(randomBytes(32))),
      new Uint8Array(32),
      new Uint8Array(32).fill(0xff),
    ];
    const disagreeing = samples.filter((bytes) => isOnCurve(bytes) !== PublicKey.isOnCurve(bytes));
    expect(disagreeing).toEqual([]);
    // Both kinds occur, so the comparison means something: about half of random bytes are points.
    const onCurve = samples.filter((bytes) => isOnCurve(bytes)).length;
    expect(onCurve).toBeGreaterThan(800);
    expect(onCurve).toBeLessThan(samples.length - 800);
  });

  test("a wallet's associated token account under SPL Token and Token-2022: the SPL library's, for 300 wallets", () => {
    expect(ASSOCIATED_TOKEN_PROGRAM_ID).toBe(SPL_ASSOCIATED_TOKEN_PROGRAM_ID.toBase58());
    for (let i = 0; i < 150; i++) {
      const wallet = Keypair.generate().publicKey;
      const mint = Keypair.generate().publicKey;
      for (const program of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
        const expected = getAssociatedTokenAddressSync(mint, wallet, false, program).toBase58();
        expect(associatedTokenAddress(wallet.toBase58(), mint.toBase58(), program.toBase58())).toBe(expected);
      }
    }
  });

  test('the canonical bump: the first off the curve from 255 down, as web3.js finds it', () => {
    for (let i = 0; i < 100; i++) {
      const seeds = [Uint8Array.from(randomBytes(32)), Buffer.from(`seed-${i}`)];
      const program = Keypair.generate().publicKey;
      const [address, bump] = PublicKey.findProgramAddressSync(seeds, program);
      expect(findProgramAddress(seeds, program.toBase58())).toEqual({ address: address.toBase58(), bump });
    }
  });

  test('a wallet off the curve (a program address), a key that is not 32 bytes, or a seed over 32 bytes is refused', () => {
    const mint = Keypair.generate().publicKey;
    const [offCurve] = PublicKey.findProgramAddressSync([Buffer.from('vault')], TOKEN_PROGRAM_ID);
    expect(() => getAssociatedTokenAddressSync(mint, offCurve)).toThrow();
    expect(() =>
      associatedTokenAddress(offCurve.toBase58(), mint.toBase58(), TOKEN_PROGRAM_ID.toBase58()),
    ).toThrow(/off the curve/);
    expect(() => associatedTokenAddress('abc', mint.toBase58(), TOKEN_PROGRAM_ID.toBase58())).toThrow(
      /public key/,
    );
    expect(() => findProgramAddress([new Uint8Array(33)], TOKEN_PROGRAM_ID.toBase58())).toThrow(/32 bytes/);
  });
});
