import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { computeBudgetOf } from './compute-budget';
import { RpcError, preflightError, type Commitment, type Ledger } from './ledger';
import { type RpcModes } from './rpc-modes';
import {
  unsupportedVersion,
  decodeBytes,
  encodeAccount,
  requiredSignatures,
  encodeTransaction,
  type AccountEncoding,
  type TransactionEncoding,
} from './rpc-encoding';

const LAMPORTS_PER_SIGNATURE = 5000;
/** Agave's MAX_GET_CONFIRMED_SIGNATURES_FOR_ADDRESS2_LIMIT. */
const MAX_SIGNATURES_PAGE = 1000;
const CORE_VERSION = '2.1.0';
/** Agave's prioritization fee cache: the last 150 blocks. */
const PRIORITIZATION_FEE_SLOTS = 150;
/** Agave's MAX_TX_ACCOUNT_LOCKS: at most 128 addresses for getRecentPrioritizationFees. */
const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;

type Params = unknown[];
export type RpcMethod = (ledger: Ledger, params: Params, modes: RpcModes) => unknown;

interface Config {
  commitment?: string;
  encoding?: string;
  skipPreflight?: boolean;
  maxSupportedTransactionVersion?: number;
  limit?: number;
  before?: string;
  until?: string;
}

function config(params: Params, index: number): Config {
  const value = params[index];
  return typeof value === 'object' && value !== null ? (value as Config) : {};
}

/** The request's commitment; Agave's default, when none is given, is `finalized`. */
function commitmentOf(options: Config): Commitment {
  const commitment = options.commitment ?? 'finalized';
  if (commitment !== 'processed' && commitment !== 'confirmed' && commitment !== 'finalized')
    throw new RpcError(-32602, `Invalid params: unknown commitment ${commitment}`);
  return commitment;
}

/** History methods are not served below `confirmed` (Agave's check_is_at_least_confirmed). */
function atLeastConfirmed(options: Config): Commitment {
  const commitment = commitmentOf(options);
  if (commitment === 'processed')
    throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
  return commitment;
}

function stringParam(params: Params, index: number): string {
  const value = params[index];
  if (typeof value !== 'string')
    throw new RpcError(-32602, `Invalid params: expected a string at position ${index}`);
  return value;
}

function pubkeyParam(params: Params, index: number): string {
  const value = stringParam(params, index);
  try {
    return new PublicKey(value).toBase58();
  } catch {
    throw new RpcError(-32602, `Invalid param: Invalid pubkey ${value}`);
  }
}

function withContext(
  ledger: Ledger,
  value: unknown,
): { context: { slot: number; apiVersion: string }; value: unknown } {
  return { context: { slot: ledger.slot, apiVersion: CORE_VERSION }, value };
}

function accountOrNull(ledger: Ledger, key: string, encoding: string | undefined): unknown {
  const account = ledger.getAccount(key);
  if (!account) return null;
  return encodeAccount(account, (encoding ?? 'base64') as AccountEncoding, (mint) =>
    ledger.mintDecimals(mint),
  );
}

function sendTransaction(ledger: Ledger, params: Params, modes: RpcModes): string {
  const options = config(params, 1);
  const wire = decodeBytes(stringParam(params, 0), options.encoding ?? 'base58');
  if (modes.dropTransactions) return ledger.accept(wire);
  if (modes.congestionComputeUnitPrice > 0) {
    const signature = ledger.accept(wire);
    const { computeUnitPrice } = computeBudgetOf(VersionedTransaction.deserialize(wire));
    if (computeUnitPrice < BigInt(modes.congestionComputeUnitPrice)) return signature;
  }
  if (!options.skipPreflight) {
    const simulation = ledger.simulate(wire);
    if (simulation.err !== null) throw preflightError(simulation.err, simulation.logs);
  }
  return ledger.send(wire).signature;
}

/** Newest first, only what reached the commitment; each entry says whether it is finalized yet. */
function getSignaturesForAddress(ledger: Ledger, params: Params): unknown[] {
  const options = config(params, 1);
  const limit = options.limit ?? MAX_SIGNATURES_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_PAGE)
    throw new RpcError(-32602, `Invalid limit; max ${MAX_SIGNATURES_PAGE}`);
  const commitment = atLeastConfirmed(options);
  const now = Date.now();
  const newestFirst = [...ledger.signaturesFor(pubkeyParam(params, 0))]
    .filter((signature) => ledger.reached(ledger.getRecord(signature)!, commitment, now))
    .reverse();
  const start = options.before ? newestFirst.indexOf(options.before) + 1 : 0;
  if (options.before && start === 0) return [];
  const untilIndex = options.until ? newestFirst.indexOf(options.until) : -1;
  const end = untilIndex >= 0 ? untilIndex : newestFirst.length;
  return newestFirst
    .slice(start, end)
    .slice(0, limit)
    .map((signature) => {
      const record = ledger.getRecord(signature)!;
      return {
        signature,
        slot: record.slot,
        err: record.err,
        memo: null,
        blockTime: record.blockTime,
        confirmationStatus: ledger.commitmentOf(record, now),
      };
    });
}

/** Null until the transaction reached the requested commitment (and, in that mode, the lagging node has it). */
/** The version `futureVersionSignatures` stand for: one above every version the chain has today. */
const FUTURE_VERSION = 1;

function getTransaction(ledger: Ledger, params: Params, modes: RpcModes): unknown {
  const options = config(params, 1);
  const commitment = atLeastConfirmed(options);
  const record = ledger.getRecord(stringParam(params, 0));
  if (!record || !ledger.reached(record, commitment) || Date.now() - record.landedAt < modes.transactionLagMs)
    return null;
  if (modes.futureVersionSignatures.includes(record.signature)) throw unsupportedVersion(FUTURE_VERSION);
  return encodeTransaction(record, {
    encoding: (options.encoding ?? 'json') as TransactionEncoding,
    maxSupportedTransactionVersion: options.maxSupportedTransactionVersion,
  });
}

/**
 * Per recent slot, the lowest compute-unit price a transaction in it paid, raised to the lowest paid by one locking
 * any of the given accounts writable (Agave's cache: a block's minimum transaction fee, and each written account's
 * minimum); oldest slot first. Under congestion every slot is at least the price the crowd pays.
 */
function getRecentPrioritizationFees(ledger: Ledger, params: Params, modes: RpcModes): unknown[] {
  const addresses = params[0] === undefined ? [] : params[0];
  if (!Array.isArray(addresses)) throw new RpcError(-32602, 'Invalid params: expected an array of addresses');
  if (addresses.length > MAX_PRIORITIZATION_FEE_ADDRESSES)
    throw new RpcError(-32602, `Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ADDRESSES}`);
  addresses.forEach((_, index) => pubkeyParam(addresses as Params, index));
  const landed = ledger.recentPrices(PRIORITIZATION_FEE_SLOTS);
  const fees: { slot: number; prioritizationFee: number }[] = [];
  const first = Math.max(0, ledger.slot - PRIORITIZATION_FEE_SLOTS + 1);
  for (let slot = first; slot <= ledger.slot; slot++) {
    // One transaction per slot here: its price is the block's minimum and, for the accounts it wrote, theirs; so the
    // addresses asked for change nothing, but they are checked as Agave checks them.
    const price = landed.get(slot) ?? 0;
    fees.push({ slot, prioritizationFee: Math.max(price, modes.congestionComputeUnitPrice) });
  }
  return fees;
}

function getSignatureStatuses(ledger: Ledger, params: Params): unknown {
  const signatures = params[0];
  if (!Array.isArray(signatures))
    throw new RpcError(-32602, 'Invalid params: expected an array of signatures');
  const statuses = signatures.map((signature) => {
    const record = ledger.getRecord(String(signature));
    if (!record) return null;
    const status = record.err === null ? { Ok: null } : { Err: record.err };
    const confirmationStatus = ledger.commitmentOf(record);
    return {
      slot: record.slot,
      confirmations: confirmationStatus === 'finalized' ? null : ledger.slot - record.slot,
      err: record.err,
      status,
      confirmationStatus,
    };
  });
  return withContext(ledger, statuses);
}

function getTokenAccountsByOwner(ledger: Ledger, params: Params): unknown {
  const owner = pubkeyParam(params, 0);
  const filter = config(params, 1) as { mint?: string; programId?: string };
  if (!filter.mint && !filter.programId)
    throw new RpcError(-32602, 'Invalid params: expected mint or programId');
  const encoding = config(params, 2).encoding;
  const accounts = ledger
    .tokenAccountsByOwner(owner, filter)
    .map((pubkey) => ({ pubkey, account: accountOrNull(ledger, pubkey, encoding) }));
  return withContext(ledger, accounts);
}

function getTokenAccountBalance(ledger: Ledger, params: Params): unknown {
  const balance = ledger.tokenBalance(pubkeyParam(params, 0));
  if (!balance) throw new RpcError(-32602, 'Invalid param: not a Token account');
  return withContext(ledger, balance);
}

export const RPC_METHODS: Record<string, RpcMethod> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'solana-core': CORE_VERSION, 'feature-set': 0 }),
  getGenesisHash: (ledger) => ledger.genesisHash,
  getSlot: (ledger, params) => ledger.slotAt(commitmentOf(config(params, 0))),
  getBlockHeight: (ledger) => ledger.slot,
  getLatestBlockhash: (ledger) => withContext(ledger, ledger.latestBlockhash()),
  isBlockhashValid: (ledger, params) => withContext(ledger, ledger.isBlockhashValid(stringParam(params, 0))),
  getFeeForMessage: (ledger, params) =>
    withContext(
      ledger,
      LAMPORTS_PER_SIGNATURE * requiredSignatures(decodeBytes(stringParam(params, 0), 'base64')),
    ),
  getMinimumBalanceForRentExemption: (ledger, params) =>
    ledger.minimumBalanceForRentExemption(Number(params[0] ?? 0)),
  getBalance: (ledger, params) =>
    withContext(ledger, ledger.getAccount(pubkeyParam(params, 0))?.lamports ?? 0),
  getAccountInfo: (ledger, params) =>
    withContext(ledger, accountOrNull(ledger, pubkeyParam(params, 0), config(params, 1).encoding)),
  getMultipleAccounts: (ledger, params) => {
    const keys = Array.isArray(params[0]) ? params[0].map(String) : [];
    return withContext(
      ledger,
      keys.map((key) => accountOrNull(ledger, key, config(params, 1).encoding)),
    );
  },
  getTokenAccountsByOwner,
  getTokenAccountBalance,
  sendTransaction,
  simulateTransaction: (ledger, params) => {
    const simulation = ledger.simulate(
      decodeBytes(stringParam(params, 0), config(params, 1).encoding ?? 'base58'),
    );
    return withContext(ledger, { ...simulation, accounts: null, returnData: null });
  },
  requestAirdrop: (ledger, params) => ledger.airdrop(pubkeyParam(params, 0), Number(params[1])).signature,
  getSignaturesForAddress,
  getTransaction,
  getSignatureStatuses,
  getRecentPrioritizationFees,
};
