import { AccountLayout } from '@solana/spl-token';
import { type VersionedTransaction } from '@solana/web3.js';
import { decodeTokenAccount, type RawAccount } from './token-accounts';

/** The memo text that makes the local chain fail a transaction (the sandbox's failing refund reason). */
export const FAILING_MEMO = 'simulate:fail';

/** SPL Memo v2 and v1: wallets and the watcher write memos with either. */
const MEMO_PROGRAM_IDS = [
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
];
const STATE_OFFSET = AccountLayout.offsetOf('state')!;
const STATE_INITIALIZED = 1;
const STATE_FROZEN = 2;

/** Whether a top-level instruction of the transaction is a memo reading exactly FAILING_MEMO. */
export function carriesFailingMemo(transaction: VersionedTransaction): boolean {
  const keys = transaction.message.staticAccountKeys.map((key) => key.toBase58());
  return transaction.message.compiledInstructions.some(
    (instruction) =>
      MEMO_PROGRAM_IDS.includes(keys[instruction.programIdIndex] ?? '') &&
      Buffer.from(instruction.data).toString('utf8') === FAILING_MEMO,
  );
}

/** The ledger's accounts, as far as freezing needs them. */
interface AccountStore<A extends RawAccount> {
  getAccount(key: string): A | null;
  setAccount(key: string, account: A): void;
}

/**
 * Runs `execute` with the transaction's existing token accounts frozen, as a stablecoin issuer freezes accounts: its
 * token transfer fails in the real SPL Token program (custom error 17, AccountFrozen) and the transaction lands with
 * that `err`, its fee charged and nothing moved. The accounts are thawed afterwards, so only this transaction fails.
 */
export function withTokenAccountsFrozen<A extends RawAccount, T>(
  store: AccountStore<A>,
  keys: readonly string[],
  execute: () => T,
): T {
  const frozen: string[] = [];
  for (const key of new Set(keys)) {
    const account = store.getAccount(key);
    if (!account || decodeTokenAccount(account)?.state !== 'initialized') continue;
    store.setAccount(key, { ...account, data: withState(account.data, STATE_FROZEN) });
    frozen.push(key);
  }
  try {
    return execute();
  } finally {
    for (const key of frozen) {
      const account = store.getAccount(key);
      if (account?.data[STATE_OFFSET] === STATE_FROZEN)
        store.setAccount(key, { ...account, data: withState(account.data, STATE_INITIALIZED) });
    }
  }
}

function withState(data: Uint8Array, state: number): Uint8Array {
  const copy = Uint8Array.from(data);
  copy[STATE_OFFSET] = state;
  return copy;
}
