import { decodeBase58 } from './base58';

export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

const TRANSFER = 3;
const TRANSFER_CHECKED = 12;
/** Token-2022's transfer fee extension (tag 26); its sub-instruction 1 is TransferCheckedWithFee. */
const TRANSFER_FEE_EXTENSION = 26;
const TRANSFER_CHECKED_WITH_FEE = 1;

/** A key as JSON gives it (string) or as web3.js gives it (PublicKey, whose toString() is base58). */
type KeyLike = string | { toString(): string };

interface TokenBalanceLike {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/**
 * An instruction in raw JSON (`accounts`, base58 `data`) or web3.js v0 (`accountKeyIndexes`, bytes) form; its account
 * indexes point into the whole key list (static keys, then those loaded from lookup tables).
 */
interface InstructionLike {
  programIdIndex: number;
  accounts?: readonly number[];
  accountKeyIndexes?: readonly number[];
  data: string | Uint8Array;
}

/** The instructions a top-level instruction invoked (CPI), as `meta.innerInstructions` lists them. */
interface InnerInstructionsLike {
  index: number;
  instructions: readonly InstructionLike[];
}

/** The `getTransaction` result (encoding json), either raw JSON or web3.js's VersionedTransactionResponse. */
export interface FetchedTransaction {
  slot: number;
  blockTime?: number | null;
  transaction: {
    signatures: readonly string[];
    message: {
      accountKeys?: readonly KeyLike[];
      staticAccountKeys?: readonly KeyLike[];
      instructions?: readonly InstructionLike[];
      compiledInstructions?: readonly InstructionLike[];
    };
  };
  meta: {
    err: unknown;
    preTokenBalances?: readonly TokenBalanceLike[] | null;
    postTokenBalances?: readonly TokenBalanceLike[] | null;
    loadedAddresses?: { writable: readonly KeyLike[]; readonly: readonly KeyLike[] } | null;
    innerInstructions?: readonly InnerInstructionsLike[] | null;
  } | null;
}

export interface TransferMatchCriteria {
  receivingWallet: string;
  /** Accepted mint -> the token program that must own it. */
  acceptedMints: ReadonlyMap<string, string>;
  /** The references of our requests (whatever their status) a transfer may name. */
  knownReferences: ReadonlySet<string>;
}

/** One SPL token transfer instruction that moved tokens into the receiving wallet and names our references. */
export interface InstructionTransfer {
  kind: 'received' | 'wrong_mint';
  /**
   * Where the instruction sits in its transaction: `3` for the fourth top-level instruction, `3.0` for the first
   * instruction that one invoked (CPI). With the signature, it names the money once.
   */
  instruction: string;
  /** Our references among the instruction's accounts, each once, in account order. */
  references: string[];
  signature: string;
  slot: number;
  blockTime: number | null;
  mint: string;
  tokenProgram: string;
  /** The base units this instruction moved (its own amount, not what the account gained in the whole transaction). */
  amount: bigint;
  /** Owner of the token account the transfer debited (who paid: a refund goes back to it); null when not shown. */
  sourceOwner: string | null;
}

/**
 * Finds, in a landed, successful transaction, every SPL Token or Token-2022 `Transfer`/`TransferChecked` instruction
 * (top-level or invoked by another program) that moved tokens into a token account of the receiving wallet and names
 * at least one of our references among its accounts. Each reports its own amount: a transaction's money is split
 * between payments by instruction, never by what an account gained over the whole transaction, so one transaction
 * cannot pay a payment with money another instruction sent. Failed transactions moved nothing and yield nothing.
 */
export function findTransferInstructions(
  tx: FetchedTransaction,
  criteria: TransferMatchCriteria,
): InstructionTransfer[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const keys = accountKeys(tx);
  const found: (InstructionTransfer & { destination: number })[] = [];
  const consider = (instruction: InstructionLike, position: string): void => {
    const tokenProgram = keys[instruction.programIdIndex];
    if (tokenProgram !== TOKEN_PROGRAM_ID && tokenProgram !== TOKEN_2022_PROGRAM_ID) return;
    const transfer = decodeTransfer(instruction.data, tokenProgram);
    if (!transfer || transfer.amount === 0n) return;
    const indexes = instruction.accounts ?? instruction.accountKeyIndexes ?? [];
    const destination = indexes[transfer.destinationPosition];
    if (destination === undefined) return;
    const mint = walletAccountMint(tx, destination, criteria.receivingWallet);
    if (mint === null) return;
    // TransferChecked names its mint; the token program refuses one that is not the accounts' mint.
    if (transfer.mintPosition !== null && keys[indexes[transfer.mintPosition]!] !== mint) return;
    const references = [...new Set(indexes.map((index) => keys[index]!))].filter((key) =>
      criteria.knownReferences.has(key),
    );
    if (references.length === 0) return;
    found.push({
      kind: criteria.acceptedMints.get(mint) === tokenProgram ? 'received' : 'wrong_mint',
      instruction: position,
      references,
      signature: tx.transaction.signatures[0]!,
      slot: tx.slot,
      blockTime: tx.blockTime ?? null,
      mint,
      tokenProgram,
      amount: transfer.amount,
      sourceOwner: ownerOf(tx, indexes[SOURCE_POSITION]),
      destination,
    });
  };
  const inner = new Map((tx.meta.innerInstructions ?? []).map((entry) => [entry.index, entry.instructions]));
  instructions(tx).forEach((instruction, index) => {
    consider(instruction, String(index));
    inner.get(index)?.forEach((invoked, innerIndex) => consider(invoked, `${index}.${innerIndex}`));
  });
  return capByArrival(tx, found);
}

/**
 * Never credits more than arrived: what the instructions into one token account of the transaction are credited,
 * in instruction order, is capped by what that account gained (post minus pre token balance). A Token-2022 mint with
 * a transfer fee withholds the fee in the destination account, so a plain `TransferChecked` of 100 may leave 99
 * spendable: the instruction names 100, the cap credits 99. An instruction left with nothing is dropped.
 */
function capByArrival(
  tx: FetchedTransaction,
  found: readonly (InstructionTransfer & { destination: number })[],
): InstructionTransfer[] {
  const left = new Map<number, bigint>();
  const capped: InstructionTransfer[] = [];
  for (const { destination, ...transfer } of found) {
    const available = left.get(destination) ?? gained(tx, destination);
    const amount = transfer.amount < available ? transfer.amount : available;
    left.set(destination, available - amount);
    if (amount > 0n) capped.push({ ...transfer, amount });
  }
  return capped;
}

/** What a token account gained over the transaction (0 when it lost or kept its balance). */
function gained(tx: FetchedTransaction, accountIndex: number): bigint {
  const balance = (balances: readonly TokenBalanceLike[] | null | undefined) =>
    BigInt(balances?.find((entry) => entry.accountIndex === accountIndex)?.uiTokenAmount.amount ?? '0');
  const gain = balance(tx.meta?.postTokenBalances) - balance(tx.meta?.preTokenBalances);
  return gain > 0n ? gain : 0n;
}

/** Every account key of the transaction, static ones first, then those loaded from lookup tables. */
export function accountKeys(tx: FetchedTransaction): string[] {
  const message = tx.transaction.message;
  const loaded = tx.meta?.loadedAddresses;
  const keys = [
    ...(message.staticAccountKeys ?? message.accountKeys ?? []),
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? []),
  ];
  return keys.map((key) => key.toString());
}

function instructions(tx: FetchedTransaction): readonly InstructionLike[] {
  return tx.transaction.message.compiledInstructions ?? tx.transaction.message.instructions ?? [];
}

/** Transfer, TransferChecked and TransferCheckedWithFee all debit their first account. */
const SOURCE_POSITION = 0;

interface DecodedTransfer {
  /** What the instruction says the destination receives (a TransferCheckedWithFee's amount less its fee). */
  amount: bigint;
  /**
   * Transfer [source, destination, authority, ...signers]; TransferChecked and TransferCheckedWithFee
   * [source, mint, destination, authority, ...].
   */
  destinationPosition: number;
  mintPosition: number | null;
}

/**
 * A token program's Transfer (tag 3, then a u64 amount) or TransferChecked (tag 12, u64 amount, u8 decimals), or
 * Token-2022's TransferCheckedWithFee (tag 26, sub-tag 1, u64 amount, u8 decimals, u64 fee: the fee stays withheld
 * in the destination account, so amount - fee arrives), as the program itself reads them (little-endian; bytes past
 * those are ignored); anything else is null.
 */
function decodeTransfer(data: string | Uint8Array, tokenProgram: string): DecodedTransfer | null {
  const bytes = typeof data === 'string' ? decodeBase58(data) : data;
  if (!bytes) return null;
  if (bytes[0] === TRANSFER && bytes.length >= 9)
    return { amount: readU64(bytes, 1), destinationPosition: 1, mintPosition: null };
  if (bytes[0] === TRANSFER_CHECKED && bytes.length >= 10)
    return { amount: readU64(bytes, 1), destinationPosition: 2, mintPosition: 1 };
  if (
    tokenProgram === TOKEN_2022_PROGRAM_ID &&
    bytes[0] === TRANSFER_FEE_EXTENSION &&
    bytes[1] === TRANSFER_CHECKED_WITH_FEE &&
    bytes.length >= 19
  ) {
    const amount = readU64(bytes, 2);
    const fee = readU64(bytes, 11);
    // The program refuses a fee above the amount; read defensively all the same.
    return { amount: fee < amount ? amount - fee : 0n, destinationPosition: 2, mintPosition: 1 };
  }
  return null;
}

/** The little-endian u64 at `offset`. */
function readU64(bytes: Uint8Array, offset: number): bigint {
  let value = 0n;
  for (let i = offset + 7; i >= offset; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/** The owner of a token account of the transaction, as its token balances show it. */
function ownerOf(tx: FetchedTransaction, accountIndex: number | undefined): string | null {
  const shown = (balances: readonly TokenBalanceLike[] | null | undefined) =>
    balances?.find((balance) => balance.accountIndex === accountIndex)?.owner;
  return shown(tx.meta?.preTokenBalances) ?? shown(tx.meta?.postTokenBalances) ?? null;
}

/** The mint of a token account the wallet owns after the transaction (its post token balance says so); else null. */
function walletAccountMint(tx: FetchedTransaction, accountIndex: number, wallet: string): string | null {
  const post = tx.meta?.postTokenBalances?.find((balance) => balance.accountIndex === accountIndex);
  return post && post.owner === wallet ? post.mint : null;
}
