import { AccountLayout, MintLayout, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';

export const TOKEN_PROGRAM_IDS: readonly string[] = [
  TOKEN_PROGRAM_ID.toBase58(),
  TOKEN_2022_PROGRAM_ID.toBase58(),
];
const ACCOUNT_STATE_INITIALIZED = 1;
const ACCOUNT_STATE_FROZEN = 2;
/** Token-2022 puts an account-type byte right after the 165-byte base layout when extensions follow. */
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number;
  uiAmountString: string;
}

export interface TokenAccountState {
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  isNative: boolean;
  state: 'initialized' | 'frozen';
}

export interface RawAccount {
  owner: string;
  data: Uint8Array;
}

export function isTokenProgram(programId: string): boolean {
  return TOKEN_PROGRAM_IDS.includes(programId);
}

/** Decodes an SPL token account (classic or Token-2022 base layout); null for anything else. */
export function decodeTokenAccount(account: RawAccount): TokenAccountState | null {
  if (!isTokenProgram(account.owner) || account.data.length < AccountLayout.span) return null;
  if (account.data.length > AccountLayout.span && account.data[AccountLayout.span] !== ACCOUNT_TYPE_ACCOUNT) {
    return null;
  }
  const decoded = AccountLayout.decode(account.data.subarray(0, AccountLayout.span));
  if (decoded.state !== ACCOUNT_STATE_INITIALIZED && decoded.state !== ACCOUNT_STATE_FROZEN) return null;
  return {
    mint: decoded.mint.toBase58(),
    owner: decoded.owner.toBase58(),
    programId: account.owner,
    amount: decoded.amount,
    isNative: decoded.isNativeOption === 1,
    state: decoded.state === ACCOUNT_STATE_INITIALIZED ? 'initialized' : 'frozen',
  };
}

export interface MintState {
  decimals: number;
  supply: bigint;
  mintAuthority: string | null;
  freezeAuthority: string | null;
}

export function decodeMint(account: RawAccount): MintState | null {
  if (!isTokenProgram(account.owner) || account.data.length < MintLayout.span) return null;
  const isToken2022MintWithExtensions =
    account.data.length > AccountLayout.span && account.data[AccountLayout.span] === ACCOUNT_TYPE_MINT;
  if (account.data.length !== MintLayout.span && !isToken2022MintWithExtensions) return null;
  const decoded = MintLayout.decode(account.data.subarray(0, MintLayout.span));
  if (!decoded.isInitialized) return null;
  return {
    decimals: decoded.decimals,
    supply: decoded.supply,
    mintAuthority: decoded.mintAuthorityOption ? decoded.mintAuthority.toBase58() : null,
    freezeAuthority: decoded.freezeAuthorityOption ? decoded.freezeAuthority.toBase58() : null,
  };
}

/** Formats base units as the RPC does: exact decimal string, trailing zeros trimmed. */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const uiAmountString = fraction.length > 0 ? `${whole}.${fraction}` : whole.toString();
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

export function encodeMint(mintAuthority: PublicKey, decimals: number, supply: bigint): Uint8Array {
  const data = Buffer.alloc(MintLayout.span);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority,
      supply,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}

export function encodeTokenAccount(mint: PublicKey, owner: PublicKey, amount: bigint): Uint8Array {
  const data = Buffer.alloc(AccountLayout.span);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: ACCOUNT_STATE_INITIALIZED,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}
