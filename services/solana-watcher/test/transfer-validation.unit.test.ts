import { Keypair } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  accountKeys,
  findTransferInstructions,
  type FetchedTransaction,
  type TransferMatchCriteria,
} from '../src/domain/transfer-validation';
import failedFixture from './fixtures/failed-insufficient-funds.json';
import legacyFixture from './fixtures/legacy-usdc-creates-ata.json';
import token2022Fixture from './fixtures/v0-token-2022.json';
import v0Fixture from './fixtures/v0-usdc.json';
import { encodeBase58 } from '../src/domain/base58';

interface Fixture {
  context: { receivingWallet: string; reference: string; mint: string; amountBaseUnits: string };
  response: unknown;
}

function load(fixture: Fixture): { context: Fixture['context']; tx: FetchedTransaction } {
  return { context: fixture.context, tx: structuredClone(fixture.response) as FetchedTransaction };
}

function criteria(context: Fixture['context'], acceptedMints: [string, string][]): TransferMatchCriteria {
  return {
    receivingWallet: context.receivingWallet,
    acceptedMints: new Map(acceptedMints),
    knownReferences: new Set([context.reference]),
  };
}

describe('findTransferInstructions', () => {
  it.each([
    ['a legacy transaction that also creates the receiving token account', legacyFixture],
    ['a v0 transaction', v0Fixture],
  ])('reports the exact amount received for %s', (_name, fixture: Fixture) => {
    const { context, tx } = load(fixture);
    const transfers = findTransferInstructions(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]));
    expect(transfers).toEqual([
      {
        kind: 'received',
        // A top-level instruction (the wallet's transfer, after its compute-budget or account-creating ones).
        instruction: expect.stringMatching(/^\d+$/),
        references: [context.reference],
        signature: tx.transaction.signatures[0],
        slot: tx.slot,
        blockTime: tx.blockTime,
        mint: context.mint,
        tokenProgram: TOKEN_PROGRAM_ID,
        amount: BigInt(context.amountBaseUnits),
        // The buyer's wallet signs as fee payer and owns the token account it pays from.
        sourceOwner: accountKeys(tx)[0],
      },
    ]);
  });

  it('accepts a Token-2022 transfer when that mint is accepted under Token-2022', () => {
    const { context, tx } = load(token2022Fixture);
    const [transfer] = findTransferInstructions(
      tx,
      criteria(context, [[context.mint, TOKEN_2022_PROGRAM_ID]]),
    );
    expect(transfer).toMatchObject({ kind: 'received', tokenProgram: TOKEN_2022_PROGRAM_ID });
    expect(transfer?.amount).toBe(BigInt(context.amountBaseUnits));
  });

  it('flags a transfer of a mint that is not accepted as wrong_mint', () => {
    const { context, tx } = load(legacyFixture);
    const otherMint = Keypair.generate().publicKey.toBase58();
    const [transfer] = findTransferInstructions(tx, criteria(context, [[otherMint, TOKEN_PROGRAM_ID]]));
    expect(transfer).toMatchObject({
      kind: 'wrong_mint',
      mint: context.mint,
      amount: BigInt(context.amountBaseUnits),
    });
  });

  it('flags an accepted mint arriving under the other token program as wrong_mint', () => {
    const { context, tx } = load(token2022Fixture);
    const [transfer] = findTransferInstructions(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]));
    expect(transfer?.kind).toBe('wrong_mint');
  });

  it('skips a failed transaction', () => {
    const { context, tx } = load(failedFixture);
    expect(tx.meta?.err).not.toBeNull();
    expect(findTransferInstructions(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]))).toEqual([]);
  });

  it('ignores references that are not open', () => {
    const { context, tx } = load(v0Fixture);
    const closed = {
      ...criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]),
      knownReferences: new Set<string>(),
    };
    expect(findTransferInstructions(tx, closed)).toEqual([]);
  });

  it('ignores a transfer to a wallet other than the receiving one', () => {
    const { context, tx } = load(v0Fixture);
    const elsewhere = { ...context, receivingWallet: Keypair.generate().publicKey.toBase58() };
    expect(findTransferInstructions(tx, criteria(elsewhere, [[context.mint, TOKEN_PROGRAM_ID]]))).toEqual([]);
  });

  it('finds a reference loaded from an address lookup table', () => {
    const { context, tx } = load(v0Fixture);
    const message = tx.transaction.message as { accountKeys: string[] };
    // The reference is a read-only non-signer, so it compiles last; loaded read-only keys keep that index.
    expect(message.accountKeys[message.accountKeys.length - 1]).toBe(context.reference);
    message.accountKeys.pop();
    tx.meta!.loadedAddresses = { writable: [], readonly: [context.reference] };
    const [transfer] = findTransferInstructions(tx, criteria(context, [[context.mint, TOKEN_PROGRAM_ID]]));
    expect(transfer?.amount).toBe(BigInt(context.amountBaseUnits));
  });
});

/**
 * Transactions written by hand in the RPC's `json` encoding (not built by our code): what an attacker's or an unusual
 * wallet's transaction looks like to the watcher.
 */
describe('findTransferInstructions on hand-written transactions', () => {
  const key = () => Keypair.generate().publicKey.toBase58();
  const wallet = key();
  const payer = key();
  const mint = key();
  const [referenceA, referenceB, router] = [key(), key(), key()];
  // Account keys: 0 payer, 1 payer's token account, 2 receiving token account, 3 mint, 4 token program,
  // 5 reference A, 6 reference B, 7 a program that invokes the token program (CPI).
  const keysWith = (program: string) => [payer, key(), key(), mint, program, referenceA, referenceB, router];
  const SOURCE = 1;
  const DESTINATION = 2;
  const MINT = 3;

  /** Instruction data as the token program reads it: tag, u64 amount (little-endian), decimals for the checked form. */
  function data(tag: 3 | 12, amount: bigint): string {
    const bytes = Buffer.alloc(tag === 12 ? 10 : 9);
    bytes[0] = tag;
    bytes.writeBigUInt64LE(amount, 1);
    if (tag === 12) bytes[9] = 6;
    return encodeBase58(bytes);
  }
  const transferChecked = (amount: bigint, references: number[]) => ({
    programIdIndex: 4,
    accounts: [SOURCE, MINT, DESTINATION, 0, ...references],
    data: data(12, amount),
    stackHeight: null,
  });
  const transfer = (amount: bigint, references: number[]) => ({
    programIdIndex: 4,
    accounts: [SOURCE, DESTINATION, 0, ...references],
    data: data(3, amount),
    stackHeight: null,
  });
  const balance = (accountIndex: number, owner: string, amount: bigint, program: string) => ({
    accountIndex,
    mint,
    owner,
    programId: program,
    uiTokenAmount: { amount: amount.toString(), decimals: 6, uiAmount: null, uiAmountString: '' },
  });

  function transaction(
    instructions: unknown[],
    options: { program?: string; received?: bigint; inner?: unknown[] } = {},
  ): FetchedTransaction {
    const program = options.program ?? TOKEN_PROGRAM_ID;
    const received = options.received ?? 0n;
    return {
      slot: 42,
      blockTime: 1_700_000_000,
      transaction: {
        signatures: ['5ig'],
        message: {
          accountKeys: keysWith(program),
          instructions,
        } as FetchedTransaction['transaction']['message'],
      },
      meta: {
        err: null,
        preTokenBalances: [
          balance(SOURCE, payer, 10n ** 12n, program),
          balance(DESTINATION, wallet, 0n, program),
        ],
        postTokenBalances: [
          balance(SOURCE, payer, 10n ** 12n - received, program),
          balance(DESTINATION, wallet, received, program),
        ],
        loadedAddresses: { writable: [], readonly: [] },
        innerInstructions: (options.inner ?? []) as NonNullable<
          FetchedTransaction['meta']
        >['innerInstructions'],
      },
    };
  }

  const matching = (program = TOKEN_PROGRAM_ID): TransferMatchCriteria => ({
    receivingWallet: wallet,
    acceptedMints: new Map([[mint, program]]),
    knownReferences: new Set([referenceA, referenceB]),
  });
  const found = (tx: FetchedTransaction, program?: string) =>
    findTransferInstructions(tx, matching(program)).map((one) => ({
      instruction: one.instruction,
      references: one.references,
      amount: one.amount,
      kind: one.kind,
    }));

  it('reports one TransferChecked naming two references as one instruction naming both', () => {
    const tx = transaction([transferChecked(5_000_000n, [5, 6])], { received: 5_000_000n });
    expect(found(tx)).toEqual([
      { instruction: '0', references: [referenceA, referenceB], amount: 5_000_000n, kind: 'received' },
    ]);
  });

  it('gives each instruction its own amount, not what the account gained over the whole transaction', () => {
    const tx = transaction([transferChecked(5_000_000n, [5]), transferChecked(1n, [6])], {
      received: 5_000_001n,
    });
    expect(found(tx)).toEqual([
      { instruction: '0', references: [referenceA], amount: 5_000_000n, kind: 'received' },
      { instruction: '1', references: [referenceB], amount: 1n, kind: 'received' },
    ]);
  });

  it('finds a transfer another program made (CPI) from the inner instructions, under its position', () => {
    const call = { programIdIndex: 7, accounts: [0, 1, 2, 3, 4, 5], data: encodeBase58(Buffer.from([9])) };
    const tx = transaction([call], {
      received: 2_500_000n,
      inner: [{ index: 0, instructions: [{ ...transferChecked(2_500_000n, [5]), stackHeight: 2 }] }],
    });
    expect(found(tx)).toEqual([
      { instruction: '0.0', references: [referenceA], amount: 2_500_000n, kind: 'received' },
    ]);
  });

  it('reads a plain Transfer (not checked), its mint known from the receiving account', () => {
    const tx = transaction([transfer(3_000_000n, [6])], { received: 3_000_000n });
    expect(found(tx)).toEqual([
      { instruction: '0', references: [referenceB], amount: 3_000_000n, kind: 'received' },
    ]);
  });

  it.each([
    ['TransferChecked', transferChecked],
    ['Transfer', transfer],
  ])('reads a Token-2022 %s', (_name, build) => {
    const tx = transaction([build(4_000_000n, [5])], {
      program: TOKEN_2022_PROGRAM_ID,
      received: 4_000_000n,
    });
    expect(found(tx, TOKEN_2022_PROGRAM_ID)).toEqual([
      { instruction: '0', references: [referenceA], amount: 4_000_000n, kind: 'received' },
    ]);
  });

  it('ignores token instructions that move nothing into the wallet', () => {
    const toSomeoneElse = { ...transferChecked(1_000n, [5]), accounts: [DESTINATION, MINT, SOURCE, 0, 5] };
    const otherMint = { ...transferChecked(1_000n, [5]), accounts: [SOURCE, 5, DESTINATION, 0, 6] };
    const truncated = { ...transfer(1_000n, [5]), data: encodeBase58(Buffer.from([3, 1, 2])) };
    const zero = transferChecked(0n, [5]);
    const approve = {
      ...transfer(1_000n, [5]),
      data: encodeBase58(Buffer.from([4, 1, 0, 0, 0, 0, 0, 0, 0])),
    };
    const notToken = { ...transferChecked(1_000n, [5]), programIdIndex: 7 };
    const tx = transaction([toSomeoneElse, otherMint, truncated, zero, approve, notToken]);
    expect(found(tx)).toEqual([]);
  });

  /** Token-2022 TransferCheckedWithFee: tag 26, sub-tag 1, u64 amount, u8 decimals, u64 fee. */
  function withFee(amount: bigint, fee: bigint, references: number[], length = 19) {
    const bytes = Buffer.alloc(19);
    bytes[0] = 26;
    bytes[1] = 1;
    bytes.writeBigUInt64LE(amount, 2);
    bytes[10] = 6;
    bytes.writeBigUInt64LE(fee, 11);
    return { ...transferChecked(0n, references), data: encodeBase58(bytes.subarray(0, length)) };
  }

  it('credits a Token-2022 TransferCheckedWithFee its amount less the fee withheld', () => {
    const tx = transaction([withFee(1_000_000n, 10_000n, [5])], {
      program: TOKEN_2022_PROGRAM_ID,
      received: 990_000n,
    });
    expect(found(tx, TOKEN_2022_PROGRAM_ID)).toEqual([
      { instruction: '0', references: [referenceA], amount: 990_000n, kind: 'received' },
    ]);
  });

  it('ignores a TransferCheckedWithFee cut short or sent to the classic token program', () => {
    const short = transaction([withFee(1_000_000n, 10_000n, [5], 18)], {
      program: TOKEN_2022_PROGRAM_ID,
      received: 990_000n,
    });
    expect(found(short, TOKEN_2022_PROGRAM_ID)).toEqual([]);
    const classic = transaction([withFee(1_000_000n, 10_000n, [5])], { received: 990_000n });
    expect(found(classic)).toEqual([]);
  });

  it('never credits a fee-bearing mint more than arrived: a plain TransferChecked is capped by the gain', () => {
    // The mint withholds 1 %: TransferChecked names 1 000 000, the account gains 990 000.
    const tx = transaction([transferChecked(1_000_000n, [5])], {
      program: TOKEN_2022_PROGRAM_ID,
      received: 990_000n,
    });
    expect(found(tx, TOKEN_2022_PROGRAM_ID)).toEqual([
      { instruction: '0', references: [referenceA], amount: 990_000n, kind: 'received' },
    ]);
  });

  it('caps instructions into one account, in order, by what that account gained over the transaction', () => {
    const tx = transaction(
      [transferChecked(600n, [5]), transferChecked(600n, [6]), transferChecked(5n, [5])],
      {
        program: TOKEN_2022_PROGRAM_ID,
        received: 1_000n,
      },
    );
    expect(found(tx, TOKEN_2022_PROGRAM_ID)).toEqual([
      { instruction: '0', references: [referenceA], amount: 600n, kind: 'received' },
      { instruction: '1', references: [referenceB], amount: 400n, kind: 'received' },
    ]);
  });
});
