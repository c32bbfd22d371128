import { VersionedMessage } from '@solana/web3.js';
import bs58 from 'bs58';
import { RpcError, type AccountSnapshot, type TransactionRecord } from './ledger';
import { TOKEN_PROGRAM_IDS, decodeMint, decodeTokenAccount, uiTokenAmount } from './token-accounts';

export type AccountEncoding = 'base64' | 'base58' | 'jsonParsed';
export type TransactionEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';

export interface TransactionQuery {
  encoding: TransactionEncoding;
  maxSupportedTransactionVersion: number | undefined;
}

export function encodeBytes(bytes: Uint8Array, encoding: 'base64' | 'base58'): [string, string] {
  return [encoding === 'base58' ? bs58.encode(bytes) : Buffer.from(bytes).toString('base64'), encoding];
}

export function decodeBytes(encoded: string, encoding: string): Uint8Array {
  if (encoding === 'base58') return bs58.decode(encoded);
  if (encoding === 'base64') return Buffer.from(encoded, 'base64');
  throw new RpcError(-32602, `Invalid params: unsupported encoding ${encoding}`);
}

export function encodeAccount(
  account: AccountSnapshot,
  encoding: AccountEncoding,
  decimalsOf: (mint: string) => number,
): Record<string, unknown> {
  return {
    data:
      encoding === 'jsonParsed'
        ? (parsedAccountData(account, decimalsOf) ?? encodeBytes(account.data, 'base64'))
        : encodeBytes(account.data, encoding),
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: 0,
    space: account.data.length,
  };
}

function parsedAccountData(account: AccountSnapshot, decimalsOf: (mint: string) => number): unknown {
  const program = account.owner === TOKEN_PROGRAM_IDS[0] ? 'spl-token' : 'spl-token-2022';
  const token = decodeTokenAccount(account);
  if (token) {
    const info = {
      isNative: token.isNative,
      mint: token.mint,
      owner: token.owner,
      state: token.state,
      tokenAmount: uiTokenAmount(token.amount, decimalsOf(token.mint)),
    };
    return { program, parsed: { type: 'account', info }, space: account.data.length };
  }
  const mint = decodeMint(account);
  if (mint) {
    const info = { ...mint, supply: mint.supply.toString(), isInitialized: true };
    return { program, parsed: { type: 'mint', info }, space: account.data.length };
  }
  return null;
}

export function encodeTransaction(
  record: TransactionRecord,
  query: TransactionQuery,
): Record<string, unknown> {
  const version = record.transaction.version;
  if (version !== 'legacy' && (query.maxSupportedTransactionVersion ?? -1) < version)
    throw unsupportedVersion(version);
  const parsed = query.encoding === 'jsonParsed';
  const result: Record<string, unknown> = {
    slot: record.slot,
    blockTime: record.blockTime,
    meta: encodeMeta(record, parsed),
    transaction: encodeTransactionBody(record, query.encoding),
  };
  if (query.maxSupportedTransactionVersion !== undefined) result.version = version;
  return result;
}

function encodeMeta(record: TransactionRecord, parsed: boolean): Record<string, unknown> {
  return {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: record.innerInstructions.map((entry) => ({
      index: entry.index,
      instructions: parsed
        ? entry.instructions.map((ix) =>
            partiallyDecoded(record.accountKeys, ix.programIdIndex, ix.accounts, ix.data, ix.stackHeight),
          )
        : entry.instructions,
    })),
    logMessages: record.logs,
    preTokenBalances: record.preTokenBalances,
    postTokenBalances: record.postTokenBalances,
    rewards: [],
    loadedAddresses: record.loadedAddresses,
    computeUnitsConsumed: record.computeUnitsConsumed,
  };
}

function encodeTransactionBody(record: TransactionRecord, encoding: TransactionEncoding): unknown {
  if (encoding === 'base64' || encoding === 'base58')
    return encodeBytes(record.transaction.serialize(), encoding);
  const message = record.transaction.message;
  const body: Record<string, unknown> = {
    header: message.header,
    recentBlockhash: message.recentBlockhash,
  };
  if (encoding === 'jsonParsed') {
    body.accountKeys = record.accountKeys.map((pubkey, index) => ({
      pubkey,
      signer: message.isAccountSigner(index),
      writable: message.isAccountWritable(index),
      source: index < message.staticAccountKeys.length ? 'transaction' : 'lookupTable',
    }));
    body.instructions = message.compiledInstructions.map((ix) =>
      partiallyDecoded(
        record.accountKeys,
        ix.programIdIndex,
        ix.accountKeyIndexes,
        bs58.encode(ix.data),
        null,
      ),
    );
  } else {
    body.accountKeys = message.staticAccountKeys.map((key) => key.toBase58());
    body.instructions = message.compiledInstructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: ix.accountKeyIndexes,
      data: bs58.encode(ix.data),
      stackHeight: null,
    }));
  }
  if (message.version === 0) {
    body.addressTableLookups = message.addressTableLookups.map((lookup) => ({
      accountKey: lookup.accountKey.toBase58(),
      writableIndexes: lookup.writableIndexes,
      readonlyIndexes: lookup.readonlyIndexes,
    }));
  }
  return {
    signatures: record.transaction.signatures.map((signature) => bs58.encode(signature)),
    message: body,
  };
}

/** Agave's answer for a transaction in a version above the one the request allows. */
export function unsupportedVersion(version: number): RpcError {
  return new RpcError(
    -32015,
    `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
  );
}

/** The "partially decoded" jsonParsed form the RPC uses for programs it has no parser for. */
function partiallyDecoded(
  accountKeys: string[],
  programIdIndex: number,
  accounts: number[],
  data: string,
  stackHeight: number | null,
): Record<string, unknown> {
  return {
    programId: accountKeys[programIdIndex],
    accounts: accounts.map((index) => accountKeys[index]),
    data,
    stackHeight,
  };
}

/** Number of signatures a serialized message (legacy or versioned) requires: its header's first byte. */
export function requiredSignatures(messageBytes: Uint8Array): number {
  return VersionedMessage.deserializeMessageVersion(messageBytes) === 'legacy'
    ? messageBytes[0]!
    : messageBytes[1]!;
}
