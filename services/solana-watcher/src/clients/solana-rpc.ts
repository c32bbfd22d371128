import { histogram, inOutgoingCall, tracerOf } from '@gateway/observability';
import type { FetchedTransaction } from '../domain/transfer-validation';
import { RequestPacer } from './request-pacer';
import {
  DEFAULT_RETRY_POLICY,
  postWithRetry,
  type HttpAnswer,
  type HttpPost,
  type RetryPolicy,
} from './retry-post';

const rpcRequests = histogram(
  'solana_watcher_rpc_request_duration_seconds',
  'JSON-RPC calls to the Solana node, retries included, by method and outcome (ok; rpc_error: the node answered an error; http_error: an HTTP error status; unreachable: no answer)',
  ['method', 'outcome'],
  [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
);
const tracer = tracerOf('solana-watcher:rpc');

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** The node answered the call with a JSON-RPC error (`code` as the node gave it: -32015 for a newer version…). */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`);
    this.name = 'RpcError';
  }
}

/**
 * The node answered, but not in the shape the method's answer has (a field missing or of another type): what the
 * watcher cannot read, as opposed to a node that failed. The scan records such a transaction as unreadable.
 */
export class UnexpectedAnswer extends Error {
  constructor(method: string, what: string) {
    super(`${method}: the node's answer is not what the method returns (${what})`);
    this.name = 'UnexpectedAnswer';
  }
}

/** One entry of `getSignaturesForAddress`, newest first. */
export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime?: number | null;
  confirmationStatus?: Commitment | null;
}

/** An account as `getMultipleAccounts` and `getTokenAccountsByOwner` give it: only the parts the watcher reads. */
export interface AccountOwner {
  /** The program owning the account (a mint's: its token program). */
  owner: string;
}

/** A token account's balance in base units, with its mint's decimals. */
export interface TokenAccountBalance {
  amount: string;
  decimals: number;
}

/**
 * The Solana node's JSON-RPC methods the watcher reads, each a POST through our pacing and retry policy, timed by
 * method and outcome and traced as one span naming the node's host and the method only (a provider's key may be in
 * the URL's path). Answers are plain JSON, checked for the fields the watcher reads: keys are base58 strings and
 * transactions come in the `json` encoding (`FetchedTransaction`). Signing and sending refunds goes through web3.js
 * (`web3-connection.ts`), loaded only when a refund is carried out (docs/adr/0054).
 */
export class SolanaRpc {
  private nextId = 1;

  constructor(
    readonly rpcUrl: string,
    private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
    private readonly pacer: RequestPacer = new RequestPacer(Number.POSITIVE_INFINITY),
    private readonly commitment: Commitment = 'confirmed',
  ) {}

  /**
   * One POST of a JSON-RPC body (a call or a batch), paced, retried, timed and traced; the answer is held as text.
   * What web3.js's own calls go through as well (web3-connection.ts).
   */
  post(post: HttpPost): Promise<HttpAnswer> {
    return this.send(post, async (answer) => {
      try {
        return { outcome: outcomeOf(answer.ok, JSON.parse(await answer.text())), value: answer };
      } catch {
        return { outcome: answer.ok ? 'rpc_error' : 'http_error', value: answer };
      }
    });
  }

  /** Calls `method`; its `result`, or RpcError for the node's error, or Error for an HTTP status or a non-JSON body. */
  async call(method: string, params: readonly unknown[]): Promise<unknown> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const answer = await this.send(
      { body, headers: { 'content-type': 'application/json' } },
      async (response) => {
        const text = await response.text();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        return { outcome: outcomeOf(response.ok, parsed), value: { response, text, parsed } };
      },
    );
    const { response, text, parsed } = answer;
    if (!response.ok)
      throw new Error(`${method}: ${response.status} ${response.statusText}: ${text.slice(0, 200)}`);
    if (!isObject(parsed)) throw new Error(`${method}: the node's answer is not a JSON-RPC response`);
    if (parsed.error !== undefined) {
      const { code, message } = isObject(parsed.error) ? parsed.error : {};
      throw new RpcError(method, typeof code === 'number' ? code : 0, String(message ?? 'error'));
    }
    if (!('result' in parsed)) throw new Error(`${method}: the node's answer has neither result nor error`);
    if (String(parsed.id) !== String(id))
      throw new Error(`${method}: the node's answer is to another request (id ${String(parsed.id)})`);
    return parsed.result;
  }

  /** The POST, its answer read by `read` once (which also tells the outcome the call is timed under). */
  private send<T>(
    post: HttpPost,
    read: (answer: HttpAnswer) => Promise<{ outcome: Outcome; value: T }>,
  ): Promise<T> {
    const method = rpcMethodOf(post.body);
    const timer = rpcRequests.startTimer({ method });
    const attributes = { 'rpc.system': 'jsonrpc', 'rpc.method': method };
    return inOutgoingCall(tracer, `Solana RPC ${method}`, this.rpcUrl, attributes, async () => {
      let answer: HttpAnswer;
      try {
        answer = await postWithRetry(this.rpcUrl, post, this.policy, this.pacer);
      } catch (err) {
        timer({ outcome: 'unreachable' });
        // web3.js answers its caller only when its fetch throws an Error of its own realm; anything else (a socket's
        // error under a test runner's realm) would leave the call waiting forever.
        throw new Error(`no answer from the Solana node to ${method}${codeOf(err)}`, { cause: err });
      }
      const { outcome, value } = await read(answer);
      timer({ outcome });
      return value;
    });
  }

  async getSlot(commitment: Commitment = this.commitment): Promise<number> {
    const slot = await this.call('getSlot', [{ commitment }]);
    return expectNumber('getSlot', slot, 'result');
  }

  /** Signatures of transactions touching `address`, newest first, `before`/`until` excluded. */
  async getSignaturesForAddress(
    address: string,
    options: { before?: string; until?: string; limit?: number },
    commitment: Commitment = this.commitment,
  ): Promise<SignatureInfo[]> {
    const config = { ...withoutUndefined(options), commitment };
    const result = await this.call('getSignaturesForAddress', [address, config]);
    if (!Array.isArray(result)) throw new UnexpectedAnswer('getSignaturesForAddress', 'not a list');
    return result.map((entry: unknown) => signatureInfo(entry));
  }

  /**
   * The transaction in the `json` encoding (keys and instruction data as base58), or null when the node does not
   * serve it (yet); UnexpectedAnswer when its shape is not what the watcher reads.
   */
  async getTransaction(
    signature: string,
    options: { maxSupportedTransactionVersion: number; commitment?: Commitment },
  ): Promise<FetchedTransaction | null> {
    const config = {
      encoding: 'json',
      commitment: options.commitment ?? this.commitment,
      maxSupportedTransactionVersion: options.maxSupportedTransactionVersion,
    };
    const result = await this.call('getTransaction', [signature, config]);
    return result === null ? null : fetchedTransaction(result, signature);
  }

  /** Each account's owner, null for an account that does not exist; in the order asked. */
  async getMultipleAccounts(addresses: readonly string[]): Promise<(AccountOwner | null)[]> {
    const config = { encoding: 'base64', commitment: this.commitment };
    const value = valueOf('getMultipleAccounts', await this.call('getMultipleAccounts', [addresses, config]));
    if (!Array.isArray(value) || value.length !== addresses.length)
      throw new UnexpectedAnswer('getMultipleAccounts', 'not one entry per account');
    return value.map((account: unknown) => (account === null ? null : accountOwner(account)));
  }

  /** The addresses of the token accounts `owner` holds of `mint`. */
  async getTokenAccountsByOwner(owner: string, mint: string): Promise<string[]> {
    const config = { encoding: 'base64', commitment: this.commitment };
    const result = await this.call('getTokenAccountsByOwner', [owner, { mint }, config]);
    const value = valueOf('getTokenAccountsByOwner', result);
    if (!Array.isArray(value)) throw new UnexpectedAnswer('getTokenAccountsByOwner', 'not a list');
    return value.map((entry: unknown) =>
      expectString('getTokenAccountsByOwner', isObject(entry) ? entry.pubkey : undefined, 'pubkey'),
    );
  }

  async getTokenAccountBalance(account: string): Promise<TokenAccountBalance> {
    const result = await this.call('getTokenAccountBalance', [account, { commitment: this.commitment }]);
    const value = valueOf('getTokenAccountBalance', result);
    const fields = isObject(value) ? value : {};
    return {
      amount: expectString('getTokenAccountBalance', fields.amount, 'amount'),
      decimals: expectNumber('getTokenAccountBalance', fields.decimals, 'decimals'),
    };
  }

  /** The account's balance, in lamports. */
  async getBalance(address: string): Promise<number> {
    const result = await this.call('getBalance', [address, { commitment: this.commitment }]);
    return expectNumber('getBalance', valueOf('getBalance', result), 'value');
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function expectNumber(method: string, value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new UnexpectedAnswer(method, `${field} not a number`);
  return value;
}

function expectString(method: string, value: unknown, field: string): string {
  if (typeof value !== 'string') throw new UnexpectedAnswer(method, `${field} not a string`);
  return value;
}

/** The `value` of an answer given with its context (`{ context: { slot }, value }`). */
function valueOf(method: string, result: unknown): unknown {
  if (!isObject(result) || !('value' in result)) throw new UnexpectedAnswer(method, 'no value');
  return result.value;
}

const COMMITMENTS: ReadonlySet<unknown> = new Set(['processed', 'confirmed', 'finalized']);

function signatureInfo(entry: unknown): SignatureInfo {
  const method = 'getSignaturesForAddress';
  if (!isObject(entry)) throw new UnexpectedAnswer(method, 'an entry not an object');
  const { blockTime, confirmationStatus } = entry;
  if (blockTime !== undefined && blockTime !== null) expectNumber(method, blockTime, 'blockTime');
  if (confirmationStatus !== undefined && confirmationStatus !== null && !COMMITMENTS.has(confirmationStatus))
    throw new UnexpectedAnswer(method, 'confirmationStatus unknown');
  return {
    signature: expectString(method, entry.signature, 'signature'),
    slot: expectNumber(method, entry.slot, 'slot'),
    err: entry.err ?? null,
    blockTime: blockTime as number | null | undefined,
    confirmationStatus: confirmationStatus as Commitment | null | undefined,
  };
}

function accountOwner(account: unknown): AccountOwner {
  return {
    owner: expectString('getMultipleAccounts', isObject(account) ? account.owner : undefined, 'owner'),
  };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isIndexList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => Number.isSafeInteger(item) && (item as number) >= 0);
}

/** Base58 (Bitcoin alphabet), as the `json` encoding writes instruction data. */
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]*$/;

type Instruction = NonNullable<FetchedTransaction['transaction']['message']['instructions']>[number];
type TokenBalanceEntry = NonNullable<NonNullable<FetchedTransaction['meta']>['preTokenBalances']>[number];

/** A transaction's status as the node gives it: null when it succeeded, else its error (a name or an object). */
function isStatus(err: unknown): boolean {
  return err === null || typeof err === 'string' || isObject(err);
}

/**
 * Why a node leaves out what it did not record: Agave stores inner instructions only with
 * `--enable-extended-tx-metadata-storage` (docs/deploying.md#the-solana-node).
 */
function nodeHint(where: string): string {
  return where === 'meta.innerInstructions'
    ? ' (Agave records them with --enable-extended-tx-metadata-storage)'
    : '';
}

/**
 * The `json` encoding's transaction, rebuilt from the fields the transfer validation reads, each checked: the
 * signature the one asked for, keys as strings, every index within the transaction's keys (its static keys, then one
 * loaded key for each index its lookup tables name), instruction data as base58, token amounts as strings of digits.
 * A successful transaction must show its token balances and inner instructions: without them what it moved is not
 * known. Anything else makes it unreadable (recorded, read again later, alerted on): a transaction is never read in
 * part. Fields the watcher does not read are neither checked nor kept.
 */
function fetchedTransaction(result: unknown, signature: string): FetchedTransaction {
  const refuse = (what: string) => new UnexpectedAnswer('getTransaction', what);
  const unique = (values: readonly number[] | undefined, what: string): void => {
    if (values && new Set(values).size !== values.length) throw refuse(what);
  };
  if (!isObject(result)) throw refuse('not an object');
  const { slot, blockTime, transaction, meta } = result;
  if (!Number.isSafeInteger(slot)) throw refuse('slot');
  if (blockTime !== undefined && blockTime !== null && !Number.isSafeInteger(blockTime))
    throw refuse('blockTime');
  if (
    !isObject(transaction) ||
    !isStringList(transaction.signatures) ||
    transaction.signatures[0] !== signature
  )
    throw refuse('transaction.signatures: not the transaction asked for');
  const { message } = transaction;
  if (!isObject(message) || !isStringList(message.accountKeys))
    throw refuse('transaction.message.accountKeys');
  const lookups = message.addressTableLookups ?? [];
  if (
    !Array.isArray(lookups) ||
    !lookups.every(
      (lookup) =>
        isObject(lookup) && isIndexList(lookup.writableIndexes) && isIndexList(lookup.readonlyIndexes),
    )
  )
    throw refuse('transaction.message.addressTableLookups');
  const named = (kind: 'writableIndexes' | 'readonlyIndexes') =>
    lookups.reduce((count: number, lookup) => count + (lookup as Record<string, unknown[]>)[kind]!.length, 0);
  if (meta !== null && !(isObject(meta) && 'err' in meta && isStatus(meta.err))) throw refuse('meta.err');
  const loaded = meta?.loadedAddresses ?? { writable: [], readonly: [] };
  if (
    !isObject(loaded) ||
    !isStringList(loaded.writable) ||
    !isStringList(loaded.readonly) ||
    loaded.writable.length !== named('writableIndexes') ||
    loaded.readonly.length !== named('readonlyIndexes')
  )
    throw refuse('meta.loadedAddresses: not one key for each index the lookup tables name');
  const keyCount = message.accountKeys.length + loaded.writable.length + loaded.readonly.length;
  const isKeyIndex = (index: unknown): index is number =>
    Number.isSafeInteger(index) && (index as number) >= 0 && (index as number) < keyCount;
  const instruction = (value: unknown, where: string): Instruction => {
    if (
      !isObject(value) ||
      !isKeyIndex(value.programIdIndex) ||
      !Array.isArray(value.accounts) ||
      !value.accounts.every(isKeyIndex) ||
      typeof value.data !== 'string' ||
      !BASE58.test(value.data)
    )
      throw refuse(where);
    return {
      programIdIndex: value.programIdIndex,
      accounts: [...(value.accounts as number[])],
      data: value.data,
    };
  };
  if (!Array.isArray(message.instructions)) throw refuse('transaction.message.instructions');
  const instructions = message.instructions.map((one) =>
    instruction(one, 'transaction.message.instructions'),
  );
  const base = {
    slot: slot as number,
    blockTime: (blockTime ?? null) as number | null,
    transaction: {
      signatures: [...transaction.signatures],
      message: { accountKeys: [...message.accountKeys], instructions },
    },
  };
  if (meta === null) return { ...base, meta: null };
  const succeeded = meta!.err === null;
  const list = <T>(value: unknown, where: string, item: (one: unknown) => T): T[] | null => {
    if (value === undefined || value === null) {
      if (succeeded)
        throw refuse(`${where}: not recorded by the node for a successful transaction${nodeHint(where)}`);
      return null;
    }
    if (!Array.isArray(value)) throw refuse(where);
    return value.map(item);
  };
  const tokenBalance =
    (where: string) =>
    (value: unknown): TokenBalanceEntry => {
      if (
        !isObject(value) ||
        !isKeyIndex(value.accountIndex) ||
        typeof value.mint !== 'string' ||
        (value.owner !== undefined && typeof value.owner !== 'string') ||
        !isObject(value.uiTokenAmount) ||
        typeof value.uiTokenAmount.amount !== 'string' ||
        !/^\d+$/.test(value.uiTokenAmount.amount)
      )
        throw refuse(where);
      return {
        accountIndex: value.accountIndex,
        mint: value.mint,
        ...(value.owner === undefined ? {} : { owner: value.owner as string }),
        uiTokenAmount: { amount: value.uiTokenAmount.amount },
      };
    };
  const innerInstructions = list(meta!.innerInstructions, 'meta.innerInstructions', (entry) => {
    if (
      !isObject(entry) ||
      !Number.isSafeInteger(entry.index) ||
      (entry.index as number) < 0 ||
      (entry.index as number) >= instructions.length ||
      !Array.isArray(entry.instructions)
    )
      throw refuse('meta.innerInstructions');
    return {
      index: entry.index as number,
      instructions: entry.instructions.map((one) => instruction(one, 'meta.innerInstructions')),
    };
  });
  const preTokenBalances = list(
    meta!.preTokenBalances,
    'meta.preTokenBalances',
    tokenBalance('meta.preTokenBalances'),
  );
  const postTokenBalances = list(
    meta!.postTokenBalances,
    'meta.postTokenBalances',
    tokenBalance('meta.postTokenBalances'),
  );
  // One entry per account and per top-level instruction, as the node writes them: a second would be read or not
  // depending on which the validation meets first.
  unique(
    preTokenBalances?.map((balance) => balance.accountIndex),
    'meta.preTokenBalances: an account twice',
  );
  unique(
    postTokenBalances?.map((balance) => balance.accountIndex),
    'meta.postTokenBalances: an account twice',
  );
  unique(
    innerInstructions?.map((entry) => entry.index),
    'meta.innerInstructions: an instruction twice',
  );
  return {
    ...base,
    meta: {
      err: meta!.err,
      preTokenBalances,
      postTokenBalances,
      loadedAddresses: { writable: [...loaded.writable], readonly: [...loaded.readonly] },
      innerInstructions,
    },
  };
}

/** The JSON-RPC method a request body calls (`batch` for several at once); a fixed set, fit for a label. */
function rpcMethodOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { method?: unknown } | unknown[];
    if (Array.isArray(parsed)) return 'batch';
    return typeof parsed.method === 'string' ? parsed.method : 'unknown';
  } catch {
    return 'unknown';
  }
}

type Outcome = 'ok' | 'rpc_error' | 'http_error';

/** An HTTP error status, an answer (or one of a batch's) with an error or not JSON-RPC at all, or ok. */
function outcomeOf(ok: boolean, parsed: unknown): Outcome {
  if (!ok) return 'http_error';
  const answers = Array.isArray(parsed) ? parsed : [parsed];
  return answers.every((one) => isObject(one) && one.error === undefined) ? 'ok' : 'rpc_error';
}

/** The failure's code, when it has one (ECONNREFUSED, UND_ERR_SOCKET…); its message is the cause's, logged with it. */
function codeOf(err: unknown): string {
  const { code } = (err ?? {}) as { code?: unknown };
  return typeof code === 'string' && code !== '' ? ` (${code})` : '';
}
