import { address, getTransactionDecoder } from '@solana/kit';
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  VersionedTransaction,
  type VersionedMessage,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import { computeBudgetOf } from './compute-budget';
import { carriesFailingMemo, withTokenAccountsFrozen } from './sandbox-rules';
import { transactionErrorJson, type TransactionErrorJson } from './svm-errors';
import {
  TOKEN_PROGRAM_IDS,
  decodeMint,
  decodeTokenAccount,
  uiTokenAmount,
  type RawAccount,
  type UiTokenAmount,
} from './token-accounts';

const LAMPORTS_PER_SIGNATURE = 5000;
/** How many recent blockhashes stay valid, as on a real cluster (~150 blocks). */
const BLOCKHASH_VALIDITY_SLOTS = 150;
const LOOKUP_TABLE_META_SIZE = 56;

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

export interface InnerInstructionRecord {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[];
}

export interface TransactionRecord {
  signature: string;
  slot: number;
  blockTime: number;
  /** Date.now() when it landed: commitment lags count from here. */
  landedAt: number;
  transaction: VersionedTransaction;
  /** Static keys followed by addresses loaded from lookup tables (writable, then read-only). */
  accountKeys: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  err: TransactionErrorJson | null;
  logs: string[];
  /** The signatures' fee plus the priority fee (compute-unit price × requested limit), as the payer is charged. */
  fee: number;
  /** Micro-lamports per compute unit its SetComputeUnitPrice offered (0: none). */
  computeUnitPrice: number;
  computeUnitsConsumed: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: InnerInstructionRecord[];
}

export interface AccountSnapshot extends RawAccount {
  lamports: number;
  executable: boolean;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/**
 * How long a landed transaction takes to reach each commitment. A real cluster confirms within about a second
 * (a supermajority voted) and finalizes some 32 slots later (about 13 s); 0 puts everything at once.
 */
export interface CommitmentLags {
  confirmedMs: number;
  finalizedMs: number;
}

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
}

/** A single-node chain on litesvm: every landed transaction is its own slot, so blockhashes and the clock move. */
export class Ledger {
  private readonly svm = new LiteSVM().withBlockhashCheck(false);
  private readonly recentBlockhashes: { blockhash: string; slot: number }[] = [];
  private readonly records = new Map<string, TransactionRecord>();
  /** Signatures per address in landing order; queried newest first. */
  private readonly signaturesByAddress = new Map<string, string[]>();
  private readonly faucet = Keypair.generate();
  readonly genesisHash: string;
  lags: CommitmentLags = { confirmedMs: 0, finalizedMs: 0 };

  constructor() {
    this.setClock(1, nowSeconds());
    this.setAccount(this.faucet.publicKey.toBase58(), {
      owner: SystemProgram.programId.toBase58(),
      data: new Uint8Array(),
      lamports: Number.MAX_SAFE_INTEGER,
      executable: false,
    });
    this.genesisHash = this.svm.latestBlockhash();
    this.rememberBlockhash();
  }

  get slot(): number {
    return Number(this.svm.getClock().slot);
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const latest = this.recentBlockhashes[this.recentBlockhashes.length - 1]!;
    return { blockhash: latest.blockhash, lastValidBlockHeight: latest.slot + BLOCKHASH_VALIDITY_SLOTS };
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.recentBlockhashes.some((entry) => entry.blockhash === blockhash);
  }

  getAccount(key: string): AccountSnapshot | null {
    const account = this.svm.getAccount(address(key));
    if (!account.exists) return null;
    return {
      owner: account.programAddress,
      data: account.data,
      lamports: Number(account.lamports),
      executable: account.executable,
    };
  }

  setAccount(key: string, account: AccountSnapshot): void {
    this.svm.setAccount({
      address: address(key),
      programAddress: address(account.owner),
      data: account.data,
      lamports: BigInt(account.lamports) as never,
      executable: account.executable,
      space: BigInt(account.data.length),
    });
  }

  /** Deploys a program (an ELF the BPF loader accepts) at an address: start-up state, like the seeded accounts. */
  addProgram(programId: string, elf: Uint8Array): void {
    this.svm.addProgram(address(programId), elf);
  }

  minimumBalanceForRentExemption(dataLength: number): number {
    return Number(this.svm.minimumBalanceForRentExemption(BigInt(dataLength)));
  }

  tokenAccountsByOwner(owner: string, filter: { mint?: string; programId?: string }): string[] {
    const programIds = filter.programId ? [filter.programId] : TOKEN_PROGRAM_IDS;
    return programIds.flatMap((programId) =>
      this.svm
        .getProgramAccounts(address(programId))
        .filter((account) => {
          const token = decodeTokenAccount({
            owner: account.programAddress,
            data: account.data as Uint8Array,
          });
          return token !== null && token.owner === owner && (!filter.mint || token.mint === filter.mint);
        })
        .map((account) => account.address as string),
    );
  }

  tokenBalance(key: string): UiTokenAmount | null {
    const account = this.getAccount(key);
    const token = account && decodeTokenAccount(account);
    if (!token) return null;
    return uiTokenAmount(token.amount, this.mintDecimals(token.mint));
  }

  mintDecimals(mint: string): number {
    const account = this.getAccount(mint);
    return (account && decodeMint(account)?.decimals) ?? 0;
  }

  getRecord(signature: string): TransactionRecord | undefined {
    return this.records.get(signature);
  }

  /** The highest commitment the landed transaction has reached by now. */
  commitmentOf(record: TransactionRecord, now: number = Date.now()): Commitment {
    const age = now - record.landedAt;
    if (age >= Math.max(this.lags.finalizedMs, this.lags.confirmedMs)) return 'finalized';
    return age >= this.lags.confirmedMs ? 'confirmed' : 'processed';
  }

  reached(record: TransactionRecord, commitment: Commitment, now: number = Date.now()): boolean {
    const order: Commitment[] = ['processed', 'confirmed', 'finalized'];
    return order.indexOf(this.commitmentOf(record, now)) >= order.indexOf(commitment);
  }

  /** The newest slot at a commitment: the one before the oldest transaction that has not reached it. */
  slotAt(commitment: Commitment, now: number = Date.now()): number {
    let oldestBehind: TransactionRecord | undefined;
    for (const record of [...this.records.values()].reverse()) {
      if (this.reached(record, commitment, now)) break;
      oldestBehind = record;
    }
    return oldestBehind ? oldestBehind.slot - 1 : this.slot;
  }

  /** Slot -> compute-unit price of the transaction landed in it (one per slot here), for the last `slots` slots. */
  recentPrices(slots: number): Map<number, number> {
    const recent = new Map<number, number>();
    for (const record of [...this.records.values()].reverse()) {
      if (record.slot <= this.slot - slots) break;
      recent.set(record.slot, record.computeUnitPrice);
    }
    return recent;
  }

  signaturesFor(key: string): readonly string[] {
    return this.signaturesByAddress.get(key) ?? [];
  }

  simulate(wire: Uint8Array): SimulationResult {
    const transaction = this.decode(wire);
    const result = this.underSandboxRules(transaction, this.allKeys(transaction), () =>
      this.svm.simulateTransaction(getTransactionDecoder().decode(wire)),
    );
    const failed = result instanceof FailedTransactionMetadata;
    const meta = result.meta();
    return {
      err: failed ? transactionErrorJson(result.err()) : null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
    };
  }

  /** Lands a transaction, successful or failed (a failed one is recorded with `err`, as on a real cluster). */
  send(wire: Uint8Array): TransactionRecord {
    const transaction = this.decode(wire);
    const budget = computeBudgetOf(transaction);
    const accountKeys = this.resolveAccountKeys(transaction.message);
    const keys = this.allKeys(transaction, accountKeys);
    const preBalances = keys.map((key) => this.getAccount(key)?.lamports ?? 0);
    const preTokenBalances = this.tokenBalances(keys);
    this.setClock(this.slot, Math.max(nowSeconds(), Number(this.svm.getClock().unixTimestamp)));
    const result = this.underSandboxRules(transaction, keys, () =>
      this.svm.sendTransaction(getTransactionDecoder().decode(wire)),
    );
    const failed = result instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? result.meta() : result;
    const record: TransactionRecord = {
      signature: bs58.encode(transaction.signatures[0]!),
      slot: this.slot,
      blockTime: Number(this.svm.getClock().unixTimestamp),
      landedAt: Date.now(),
      transaction,
      accountKeys: keys,
      loadedAddresses: accountKeys,
      err: failed ? transactionErrorJson(result.err()) : null,
      logs: meta.logs(),
      fee:
        LAMPORTS_PER_SIGNATURE * transaction.message.header.numRequiredSignatures +
        Number(budget.priorityFeeLamports),
      computeUnitPrice: Number(budget.computeUnitPrice),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      preBalances,
      postBalances: keys.map((key) => this.getAccount(key)?.lamports ?? 0),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      innerInstructions: innerInstructionRecords(meta),
    };
    this.remember(record);
    this.advanceSlot();
    return record;
  }

  /**
   * The signature of a transaction the node would accept now (valid blockhash, not landed yet), without landing it:
   * what an RPC node answers for a transaction it then drops before any leader executes it.
   */
  accept(wire: Uint8Array): string {
    return bs58.encode(this.decode(wire).signatures[0]!);
  }

  /**
   * Produces `count` slots without a transaction, as a cluster does between transactions of ours: blockhashes older
   * than the validity window expire, so a transaction signed with one can no longer land.
   */
  skipSlots(count: number): void {
    for (let i = 0; i < count; i++) this.advanceSlot();
  }

  /** Airdrops are real transfers from a faucet account, so they show up in history like on a test validator. */
  airdrop(to: string, lamports: number): TransactionRecord {
    const transfer = new Transaction({ feePayer: this.faucet.publicKey, ...this.latestBlockhash() }).add(
      SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: new PublicKey(to), lamports }),
    );
    transfer.sign(this.faucet);
    return this.send(transfer.serialize());
  }

  /** Static keys followed by those loaded from lookup tables. */
  private allKeys(
    transaction: VersionedTransaction,
    loaded: { writable: string[]; readonly: string[] } = this.resolveAccountKeys(transaction.message),
  ): string[] {
    return [
      ...transaction.message.staticAccountKeys.map((k) => k.toBase58()),
      ...loaded.writable,
      ...loaded.readonly,
    ];
  }

  /** The sandbox's failing rule (see sandbox-rules.ts): a `simulate:fail` memo runs with its token accounts frozen. */
  private underSandboxRules<T>(transaction: VersionedTransaction, keys: string[], execute: () => T): T {
    return carriesFailingMemo(transaction) ? withTokenAccountsFrozen(this, keys, execute) : execute();
  }

  private decode(wire: Uint8Array): VersionedTransaction {
    let transaction: VersionedTransaction;
    try {
      transaction = VersionedTransaction.deserialize(wire);
    } catch (err) {
      throw new RpcError(-32602, `invalid transaction: ${(err as Error).message}`);
    }
    const signature = bs58.encode(transaction.signatures[0] ?? new Uint8Array());
    if (this.records.has(signature)) throw preflightError('AlreadyProcessed');
    if (!this.isBlockhashValid(transaction.message.recentBlockhash))
      throw preflightError('BlockhashNotFound');
    return transaction;
  }

  private resolveAccountKeys(message: VersionedMessage): { writable: string[]; readonly: string[] } {
    const writable: string[] = [];
    const readonly: string[] = [];
    for (const lookup of message.addressTableLookups) {
      const table = this.getAccount(lookup.accountKey.toBase58());
      if (!table) throw preflightError('AddressLookupTableNotFound');
      const addressAt = (index: number): string =>
        new PublicKey(
          table.data.subarray(LOOKUP_TABLE_META_SIZE + index * 32, LOOKUP_TABLE_META_SIZE + (index + 1) * 32),
        ).toBase58();
      writable.push(...lookup.writableIndexes.map(addressAt));
      readonly.push(...lookup.readonlyIndexes.map(addressAt));
    }
    return { writable, readonly };
  }

  private tokenBalances(keys: string[]): TokenBalance[] {
    return keys.flatMap((key, accountIndex) => {
      const account = this.getAccount(key);
      const token = account && decodeTokenAccount(account);
      if (!token) return [];
      return [
        {
          accountIndex,
          mint: token.mint,
          owner: token.owner,
          programId: token.programId,
          uiTokenAmount: uiTokenAmount(token.amount, this.mintDecimals(token.mint)),
        },
      ];
    });
  }

  private remember(record: TransactionRecord): void {
    this.records.set(record.signature, record);
    for (const key of new Set(record.accountKeys)) {
      const signatures = this.signaturesByAddress.get(key) ?? [];
      signatures.push(record.signature);
      this.signaturesByAddress.set(key, signatures);
    }
  }

  private advanceSlot(): void {
    this.setClock(this.slot + 1, Math.max(nowSeconds(), Number(this.svm.getClock().unixTimestamp)));
    this.svm.expireBlockhash();
    this.rememberBlockhash();
  }

  private rememberBlockhash(): void {
    this.recentBlockhashes.push({ blockhash: this.svm.latestBlockhash(), slot: this.slot });
    // A blockhash of slot s is valid through block height s + BLOCKHASH_VALIDITY_SLOTS, inclusive, as on a cluster:
    // the newest and the BLOCKHASH_VALIDITY_SLOTS before it.
    if (this.recentBlockhashes.length > BLOCKHASH_VALIDITY_SLOTS + 1) this.recentBlockhashes.shift();
  }

  private setClock(slot: number, unixTimestamp: number): void {
    const clock = this.svm.getClock();
    clock.slot = BigInt(slot);
    clock.unixTimestamp = BigInt(unixTimestamp);
    this.svm.setClock(clock);
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function preflightError(err: TransactionErrorJson, logs: string[] = []): RpcError {
  return new RpcError(-32002, `Transaction simulation failed: ${JSON.stringify(err)}`, {
    err,
    logs,
    accounts: null,
    unitsConsumed: 0,
  });
}

function innerInstructionRecords(meta: TransactionMetadata): InnerInstructionRecord[] {
  return meta
    .innerInstructions()
    .map((instructions, index) => ({
      index,
      instructions: instructions.map((inner) => {
        const compiled = inner.instruction();
        return {
          programIdIndex: compiled.programIdIndex(),
          accounts: [...compiled.accounts()],
          data: bs58.encode(compiled.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    }))
    .filter((entry) => entry.instructions.length > 0);
}
