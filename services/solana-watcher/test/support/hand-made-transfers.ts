import {
  TOKEN_PROGRAM_ID,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { Connection, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { waitFor } from '@gateway/testkit';
import { forwarderInstruction } from './localnet';
import type { WatcherHarness } from './watcher';

export type OpenRequest = Awaited<ReturnType<WatcherHarness['open']>>;

/** A request's price in base units. */
export const price = (request: OpenRequest): bigint => BigInt(request.amount_base_units);

export interface RecordedInstruction {
  instruction: string;
  reference: string;
  applied_to: string;
  amount: string;
}

/**
 * Transactions written by hand (not by our sandbox wallet), paying into the receiving wallet from the localnet's
 * funded payer the way an attacker or an unusual wallet could, and what the watcher recorded of them. Its methods are
 * bound, so a test can take them apart: `const { transferTo, send } = new HandMadeTransfers(harness)`.
 */
export class HandMadeTransfers {
  constructor(private readonly harness: WatcherHarness) {}

  /** A transfer into the receiving wallet's account naming `references` (Solana Pay style: extra read-only keys). */
  readonly transferTo = (
    references: OpenRequest[],
    amount: bigint,
    options: { checked?: boolean; mint?: PublicKey; program?: PublicKey } = {},
  ): TransactionInstruction => {
    const { payer, receivingWallet, mints } = this.harness.localnet;
    const mint = options.mint ?? new PublicKey(mints.USDC);
    const program = options.program ?? TOKEN_PROGRAM_ID;
    const source = getAssociatedTokenAddressSync(mint, payer.publicKey, false, program);
    const destination = getAssociatedTokenAddressSync(mint, receivingWallet, false, program);
    const instruction =
      options.checked === false
        ? createTransferInstruction(source, destination, payer.publicKey, amount, [], program)
        : createTransferCheckedInstruction(
            source,
            mint,
            destination,
            payer.publicKey,
            amount,
            6,
            [],
            program,
          );
    for (const request of references)
      instruction.keys.push({ pubkey: new PublicKey(request.reference), isSigner: false, isWritable: false });
    return instruction;
  };

  /**
   * The same instruction made by a program: the localnet's forwarder invokes the token program with it, so in the
   * landed transaction it is an inner (CPI) instruction of the forwarder's.
   */
  readonly byProgram = (instruction: TransactionInstruction): TransactionInstruction =>
    forwarderInstruction(instruction, this.harness.localnet.forwarderProgram);

  /** Lands a transaction of these instructions, signed by the localnet's payer. */
  readonly send = (...instructions: TransactionInstruction[]): Promise<string> =>
    new Connection(this.harness.localnet.url, 'confirmed').sendTransaction(
      new Transaction().add(...instructions),
      [this.harness.localnet.payer],
    );

  /** The watcher's rows for the transaction, once it recorded `count` of its instructions. */
  readonly recorded = (signature: string, count: number): Promise<RecordedInstruction[]> =>
    waitFor(
      async () => {
        const rows: RecordedInstruction[] = await this.harness.service.dataSource.query(
          'SELECT instruction, reference, applied_to, amount FROM transfers WHERE signature = $1 ORDER BY instruction',
          [signature],
        );
        return rows.length >= count ? rows : undefined;
      },
      { what: `${count} instruction(s) of ${signature} recorded` },
    );
}
