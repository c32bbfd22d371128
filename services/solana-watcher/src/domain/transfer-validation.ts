import { decodeBase58 } from './base58';

export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

const TRANSFER = 3;
const TRANSFER_CHECKED = 12;

/** A key as JSON gives it (string) or as web3.js gives it (PublicKey, whose toString() is base58). */
type KeyLike = string | { toString(): string };

interface TokenBalanceLike {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/** A top-level instruction in raw JSON (`accounts`, base58 `data`) or web3.js v0 (`accountKeyIndexes`, bytes) form. */
interface InstructionLike {
  programIdIndex: number;
  accounts?: readonly number[];
  accountKeyIndexes?: readonly number[];
  data: string | Uint8Array;
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
  } | null;
}

export interface TransferMatchCriteria {
  receivingWallet: string;
  /** Accepted mint -> the token program that must own it. */
  acceptedMints: ReadonlyMap<string, string>;
  openReferences: ReadonlySet<string>;
}

export interface ReferencedTransfer {
  kind: 'received' | 'wrong_mint';
  reference: string;
  signature: string;
  slot: number;
  blockTime: number | null;
  mint: string;
  tokenProgram: string;
  /** Base units the receiving wallet's token account of `mint` gained in this transaction. */
  amount: bigint;
  /** Owner of the token account the transfer debited (who paid: a refund goes back to it); null when not shown. */
  sourceOwner: string | null;
}

/**
 * Finds open references on token transfer instructions of a landed, successful transaction and what the receiving
 * wallet got for each. Amounts come from token balances (post - pre), never from instruction data, so only what
 * actually arrived counts. Failed transactions yield nothing.
 */
export function findReferencedTransfers(
  tx: FetchedTransaction,
  criteria: TransferMatchCriteria,
): ReferencedTransfer[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const keys = accountKeys(tx);
  const found = new Map<string, ReferencedTransfer>();
  for (const instruction of instructions(tx)) {
    const tokenProgram = keys[instruction.programIdIndex];
    if (tokenProgram !== TOKEN_PROGRAM_ID && tokenProgram !== TOKEN_2022_PROGRAM_ID) continue;
    const destinationPosition = destinationPositionOf(instruction.data);
    if (destinationPosition === null) continue;
    const indexes = instruction.accounts ?? instruction.accountKeyIndexes ?? [];
    const destination = indexes[destinationPosition];
    const received = destination === undefined ? null : receivedBy(tx, destination, criteria.receivingWallet);
    if (!received) continue;
    for (const reference of indexes.map((index) => keys[index])) {
      if (!reference || !criteria.openReferences.has(reference) || found.has(reference)) continue;
      found.set(reference, {
        kind: criteria.acceptedMints.get(received.mint) === tokenProgram ? 'received' : 'wrong_mint',
        reference,
        signature: tx.transaction.signatures[0]!,
        slot: tx.slot,
        blockTime: tx.blockTime ?? null,
        mint: received.mint,
        tokenProgram,
        amount: received.amount,
        sourceOwner: ownerOf(tx, indexes[SOURCE_POSITION]),
      });
    }
  }
  return [...found.values()];
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

/** Both Transfer and TransferChecked debit their first account. */
const SOURCE_POSITION = 0;

/** Position of the destination among a transfer's accounts: Transfer [source, destination, authority, ...], TransferChecked [source, mint, destination, authority, ...]. */
function destinationPositionOf(data: string | Uint8Array): number | null {
  const bytes = typeof data === 'string' ? decodeBase58(data) : data;
  if (bytes?.[0] === TRANSFER) return 1;
  if (bytes?.[0] === TRANSFER_CHECKED) return 2;
  return null;
}

/** The owner of a token account of the transaction, as its token balances show it. */
function ownerOf(tx: FetchedTransaction, accountIndex: number | undefined): string | null {
  const shown = (balances: readonly TokenBalanceLike[] | null | undefined) =>
    balances?.find((balance) => balance.accountIndex === accountIndex)?.owner;
  return shown(tx.meta?.preTokenBalances) ?? shown(tx.meta?.postTokenBalances) ?? null;
}

/** What a token account owned by the wallet gained in this transaction (no pre balance: created here, so 0). */
function receivedBy(
  tx: FetchedTransaction,
  accountIndex: number,
  wallet: string,
): { mint: string; amount: bigint } | null {
  const post = tx.meta?.postTokenBalances?.find((balance) => balance.accountIndex === accountIndex);
  if (!post || post.owner !== wallet) return null;
  const pre = tx.meta?.preTokenBalances?.find((balance) => balance.accountIndex === accountIndex);
  const amount = BigInt(post.uiTokenAmount.amount) - BigInt(pre?.uiTokenAmount.amount ?? '0');
  return amount > 0n ? { mint: post.mint, amount } : null;
}
