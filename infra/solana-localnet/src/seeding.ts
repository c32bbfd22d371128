import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey, SystemProgram } from '@solana/web3.js';
import { type Ledger } from './ledger';
import { decodeMint, decodeTokenAccount, encodeMint, encodeTokenAccount } from './token-accounts';

/** Writes accounts directly into the ledger: start-up state, not transactions, so signature history stays clean. */
export class Seeder {
  constructor(private readonly ledger: Ledger) {}

  fundSol(owner: PublicKey, lamports: number): void {
    const existing = this.ledger.getAccount(owner.toBase58());
    this.ledger.setAccount(owner.toBase58(), {
      owner: existing?.owner ?? SystemProgram.programId.toBase58(),
      data: existing?.data ?? new Uint8Array(),
      lamports: (existing?.lamports ?? 0) + lamports,
      executable: false,
    });
  }

  createMint(
    mint: PublicKey,
    authority: PublicKey,
    decimals: number,
    programId: PublicKey = TOKEN_PROGRAM_ID,
  ): void {
    const data = encodeMint(authority, decimals, 0n);
    this.ledger.setAccount(mint.toBase58(), {
      owner: programId.toBase58(),
      data,
      lamports: this.ledger.minimumBalanceForRentExemption(data.length),
      executable: false,
    });
  }

  /** Creates the owner's associated token account if needed and adds `amount` base units (supply follows). */
  mintTo(owner: PublicKey, mint: PublicKey, amount: bigint): PublicKey {
    const mintAccount = this.ledger.getAccount(mint.toBase58());
    const mintState = mintAccount && decodeMint(mintAccount);
    if (!mintAccount || !mintState?.mintAuthority) throw new Error(`unknown mint ${mint.toBase58()}`);
    const programId = new PublicKey(mintAccount.owner);
    const ata = getAssociatedTokenAddressSync(mint, owner, true, programId);
    const existing = this.ledger.getAccount(ata.toBase58());
    const balance = (existing && decodeTokenAccount(existing)?.amount) ?? 0n;
    const data = encodeTokenAccount(mint, owner, balance + amount);
    this.ledger.setAccount(ata.toBase58(), {
      owner: programId.toBase58(),
      data,
      lamports: this.ledger.minimumBalanceForRentExemption(data.length),
      executable: false,
    });
    const authority = new PublicKey(mintState.mintAuthority);
    this.ledger.setAccount(mint.toBase58(), {
      ...mintAccount,
      data: encodeMint(authority, mintState.decimals, mintState.supply + amount),
    });
    return ata;
  }
}
